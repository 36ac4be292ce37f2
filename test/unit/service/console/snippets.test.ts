/** The Install page's pinned snippet: an import map of every file the script loads later, and the CSP line that allows it. */
import { createHash } from 'node:crypto';
import { expect, it } from 'vitest';
import { installWidget } from '../../../../service/routes/console/install.js';
import {
  oneTag,
  oneTagCsp,
  oneTagUrl,
  pinnedCsp,
  publicLatestTag,
  publicScriptTag,
  scriptTag,
} from '../../../../service/console/snippets.js';

const input = {
  projectId: 'proj_a',
  integrationId: 'int_a',
  serviceUrl: 'https://chat.example.com/base',
  widget: {
    version: '1.2.3',
    file: 'agent-chat.iife.js',
    integrity: 'sha384-script',
    parts: { 'agent-chat.part.markdown-engine-X.js': 'sha384-md', 'agent-chat.locale.de.js': 'sha384-de' },
  },
};

it('puts an import map of the parts and locales, one a line, before the pinned script; the CSP allows it by the hash of its exact text', () => {
  const tag = publicScriptTag(input);
  expect(tag.split('\n').slice(0, 4)).toEqual([
    '<script type="importmap">{"integrity": {',
    '  "https://chat.example.com/base/widget/1.2.3/agent-chat.locale.de.js": "sha384-de",',
    '  "https://chat.example.com/base/widget/1.2.3/agent-chat.part.markdown-engine-X.js": "sha384-md"',
    '}}</script>',
  ]);
  expect(tag.indexOf('type="importmap"')).toBeLessThan(tag.indexOf('integrity="sha384-script"'));
  expect(JSON.parse(tag.slice(tag.indexOf('>') + 1, tag.indexOf('</script>')))).toEqual({
    integrity: {
      'https://chat.example.com/base/widget/1.2.3/agent-chat.locale.de.js': 'sha384-de',
      'https://chat.example.com/base/widget/1.2.3/agent-chat.part.markdown-engine-X.js': 'sha384-md',
    },
  });
  const text = tag.slice(tag.indexOf('>') + 1, tag.indexOf('</script>'));
  const hash = createHash('sha256').update(text).digest('base64');
  expect(pinnedCsp(input, { sessionEndpoint: false })).toBe(
    `Content-Security-Policy: script-src https://chat.example.com 'sha256-${hash}'; connect-src https://chat.example.com`,
  );
  expect(pinnedCsp(input, { sessionEndpoint: true })).toBe(
    `Content-Security-Policy: script-src https://chat.example.com 'sha256-${hash}'; connect-src 'self' https://chat.example.com`,
  );
  // The session-endpoint tag pins the same; the tag that follows upgrades pins nothing.
  expect(scriptTag(input)).toContain(text);
  expect(publicLatestTag(input)).not.toContain('importmap');
});

it('the one tag is the loader through latest with the settings as data-*, no element, no hash; its CSP names the service alone', () => {
  expect(oneTag(input))
    .toBe(`<script src="https://chat.example.com/base/widget/latest/agent-chat.loader.iife.js" async
        data-project-id="proj_a" data-integration-id="int_a"
        data-base-url="https://chat.example.com/base"></script>`);
  expect(oneTagCsp(input)).toBe(
    'Content-Security-Policy: script-src https://chat.example.com; connect-src https://chat.example.com',
  );
  expect(oneTag({ ...input, widget: null })).toBeNull();
  expect(oneTagCsp({ ...input, widget: null })).toBeNull();
});

it("the one tag's URL carries the same settings in its query, for a builder that keeps a script's src alone", () => {
  const url = oneTagUrl(input)!;
  expect(url).toBe(
    'https://chat.example.com/base/widget/latest/agent-chat.loader.iife.js?project-id=proj_a&integration-id=int_a&base-url=https://chat.example.com/base',
  );
  // What the loader reads from it: the tag's data-*, by name and value.
  expect(Object.fromEntries(new URL(url).searchParams)).toEqual({
    'project-id': 'proj_a',
    'integration-id': 'int_a',
    'base-url': 'https://chat.example.com/base',
  });
  expect(oneTagUrl({ ...input, widget: null })).toBeNull();
});

it('with no widget served, neither an import map nor a CSP line', () => {
  expect(scriptTag({ ...input, widget: null })).not.toContain('importmap');
  expect(pinnedCsp({ ...input, widget: null }, { sessionEndpoint: false })).toBeNull();
});

it('the install info pins, besides the script, the files it imports later: its parts and locales, not the ES build', () => {
  const sri = Object.fromEntries(
    [
      'agent-chat.iife.js',
      'agent-chat.impl.js',
      'agent-chat.js',
      'agent-chat.loader.iife.js',
      'agent-chat.locale.de.js',
      'agent-chat.part.kit-A.js',
      'api-client-B.js',
    ].map((f) => [f, `sha384-${f}`]),
  );
  expect(installWidget({ version: '1.2.3', sri, file: async () => undefined })).toEqual({
    version: '1.2.3',
    file: 'agent-chat.iife.js',
    integrity: 'sha384-agent-chat.iife.js',
    parts: {
      'agent-chat.locale.de.js': 'sha384-agent-chat.locale.de.js',
      'agent-chat.part.kit-A.js': 'sha384-agent-chat.part.kit-A.js',
    },
  });
  expect(installWidget(null)).toBeNull();
});
