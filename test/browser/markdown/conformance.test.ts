import { describe, expect, it } from 'vitest';
import { IncrementalMarkdown } from '../../../src/markdown/incremental.js';
import {
  canonical,
  canonicalSpec,
  commonMarkExamples,
  gfmExtensionExamples,
  isHtmlExample,
  isImageExample,
  rawTags,
  renderView,
  type SpecExample,
} from '../../helpers/markdown.js';

/** Renders an example through the widget's own parse and render, as a finished answer. */
function rendered(markdown: string): HTMLElement {
  const container = document.createElement('div');
  renderView(new IncrementalMarkdown().finish(markdown), container);
  return container;
}

function score(examples: SpecExample[]) {
  const failed = examples.filter(
    (example) => canonical(rendered(example.markdown)) !== canonicalSpec(example.html),
  );
  return {
    passed: examples.length - failed.length,
    total: examples.length,
    failed: failed.map((e) => e.number),
  };
}

/** Differences the widget makes on purpose (decisions.md, item 21), each checked below. */
const INTENTIONAL = {
  // Autolinks with schemes other than http(s)/mailto (irc:, made-up schemes) render as their text.
  commonMarkUnsafeSchemes: [596, 598, 599, 601],
  // GFM's extended autolinks: a bare URL or e-mail address is a link (CommonMark leaves it as text).
  commonMarkGfmAutolinks: [602, 608, 611, 612],
  // xmpp: autolinks are GFM syntax but not an allowed scheme: text.
  gfmXmpp: [633, 634, 635],
};

describe('CommonMark conformance', () => {
  const examples = commonMarkExamples();
  const scored = examples.filter((e) => !isHtmlExample(e) && !isImageExample(e));

  it('reads all 652 examples of the 0.31.2 spec', () => {
    expect(examples).toHaveLength(652);
    expect(scored.length).toBeGreaterThan(500);
  });

  it('matches the spec on at least 97 % of the non-HTML, non-image examples', () => {
    const result = score(scored);
    console.info(
      `CommonMark: ${result.passed}/${result.total} (${((result.passed / result.total) * 100).toFixed(1)} %); differ: ${result.failed.join(' ')}`,
    );
    expect(result.passed / result.total).toBeGreaterThanOrEqual(0.97);
  });

  it('never turns raw HTML into an element: every raw tag shows as text', () => {
    const html = examples.filter(isHtmlExample);
    expect(html.length).toBeGreaterThan(70);
    for (const example of html) {
      const out = rendered(example.markdown);
      for (const tag of rawTags(example)) expect(out.textContent, `example ${example.number}`).toContain(tag);
      const foreign = [...out.querySelectorAll('*')].filter((el) => !ALLOWED_TAGS.has(el.localName));
      expect(
        foreign.map((el) => el.localName),
        `example ${example.number}`,
      ).toEqual([]);
    }
  });

  it('never loads an image: image examples show their text, with no img element', () => {
    const images = examples.filter(isImageExample);
    expect(images.length).toBeGreaterThan(15);
    for (const example of images)
      expect(rendered(example.markdown).querySelector('img'), `example ${example.number}`).toBeNull();
    expect(rendered('![a cat](https://example.com/cat.png)').textContent).toBe('a cat');
  });

  it('renders links with other schemes as their text (the listed intentional differences)', () => {
    for (const number of INTENTIONAL.commonMarkUnsafeSchemes) {
      const example = examples[number - 1];
      const out = rendered(example.markdown);
      expect(out.querySelector('a'), `example ${number}`).toBeNull();
      const spec = document.createElement('template');
      spec.innerHTML = example.html;
      expect(out.textContent!.trim(), `example ${number}`).toBe(spec.content.textContent!.trim());
    }
  });

  it('renders every heading as an h3 under the panel heading, keeping its level as a class', () => {
    const headings = [
      ...rendered('# One\n\n## Two\n\n###### Six').querySelectorAll('h1, h2, h3, h4, h5, h6'),
    ];
    expect(headings.map((h) => `${h.localName}.${h.className}`)).toEqual(['h3.h1', 'h3.h2', 'h3.h6']);
  });

  it('links bare URLs and e-mail addresses, as GFM does (the listed intentional differences)', () => {
    for (const number of INTENTIONAL.commonMarkGfmAutolinks) {
      const links = [...rendered(examples[number - 1].markdown).querySelectorAll('a')];
      expect(links.length, `example ${number}`).toBe(1);
      expect(['https:', 'mailto:']).toContain(new URL(links[0].href).protocol);
    }
  });
});

describe('GFM extension conformance', () => {
  const examples = gfmExtensionExamples();

  it('matches the spec on all but the listed xmpp: examples', () => {
    const result = score(examples);
    console.info(`GFM extensions: ${result.passed}/${result.total}; differ: ${result.failed.join(' ')}`);
    expect(examples).toHaveLength(27);
    expect(result.failed.filter((n) => !INTENTIONAL.gfmXmpp.includes(n))).toEqual([]);
    for (const example of examples.filter((e) => INTENTIONAL.gfmXmpp.includes(e.number))) {
      const out = rendered(example.markdown);
      expect(
        [...out.querySelectorAll('a')].every((a) => a.protocol === 'mailto:'),
        `example ${example.number}`,
      ).toBe(true);
      expect(out.textContent).toContain('xmpp:foo@bar.baz');
    }
  });
});

const ALLOWED_TAGS = new Set([
  'p',
  'h3',
  'strong',
  'em',
  'del',
  'code',
  'pre',
  'a',
  'ul',
  'ol',
  'li',
  'blockquote',
  'hr',
  'br',
  'table',
  'thead',
  'tbody',
  'tr',
  'th',
  'td',
  'input',
  'div',
  'span',
  'button',
]);
