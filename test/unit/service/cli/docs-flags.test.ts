import { resolve } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { docsOf } from '../../../../service/cli/docs-flags.js';
import { programEnv } from './env.js';

/** What `--docs` and AGENT_CHAT_DOCS give before anything is crawled (service/cli/docs-flags.ts). */
describe('the program docs settings', () => {
  programEnv();

  it('publishes folder docs at /docs for proj_local unless told otherwise, with no sources by default', () => {
    expect(docsOf({}, true)).toMatchObject({ locations: [], folderUrl: '/docs', project: 'proj_local' });
    vi.stubEnv('AGENT_CHAT_DOCS_URL', 'https://example.com/help/');
    expect(docsOf({}, true).folderUrl).toBe('https://example.com/help/');
    expect(docsOf({ 'docs-url': '/manual', project: 'proj_b' }, true)).toMatchObject({
      folderUrl: '/manual',
      project: 'proj_b',
    });
  });

  it('keeps a site as given and a folder by its absolute path; AGENT_CHAT_DOCS splits on commas, the flag first', () => {
    vi.stubEnv('AGENT_CHAT_DOCS', ' https://docs.example.com/ , test/fixtures/docs,');
    expect(docsOf({}, true).locations).toEqual(['https://docs.example.com/', resolve('test/fixtures/docs')]);
    expect(docsOf({ docs: ['https://other.example.com/guide/'] }, true).locations).toEqual([
      'https://other.example.com/guide/',
    ]);
  });
});
