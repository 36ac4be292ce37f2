import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readDocsFolder } from '../../../../service/docs/folder.js';
import { pdfDocument } from '../../../fixtures/files.js';

let dir: string | undefined;
afterEach(() => (dir ? rm(dir, { recursive: true, force: true }) : undefined));

/** A folder holding `files` (path → text or bytes), read as a source published at https://acme.test/docs. */
async function read(
  files: Record<string, string | Uint8Array>,
  onFailed?: (url: string, reason: string) => void,
) {
  dir = await mkdtemp(join(tmpdir(), 'docs-folder-'));
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), text);
  }
  const pages = await readDocsFolder(dir, 'https://acme.test/docs/', undefined, { onFailed });
  return new Map(pages.map((p) => [p.url, p]));
}

describe('a folder of Markdown as Docusaurus, Mintlify and MkDocs sites keep it', () => {
  it('reads MDX as the page it shows: no imports, exports, comments or component tags; titles and code kept', async () => {
    const pages = await read({
      'billing.mdx': [
        '---',
        'title: "Billing and plans"',
        'description: Change your plan or cancel it.',
        '---',
        "import { Accordion, Tabs } from '@acme/components';",
        '',
        'export const meta = {',
        "  section: 'account',",
        '};',
        '',
        '{/* Keep in step with the pricing page. */}',
        'Plans renew each month.',
        '',
        '<Accordion title="Can I cancel at any time?">',
        '  Yes: open **Settings**, then <Badge>Plan</Badge>.',
        '</Accordion>',
        '',
        '## Invoices',
        '',
        '<Tabs items={["PDF", "CSV"]} />',
        '```jsx',
        "import { Invoice } from '@acme/sdk';",
        '<Invoice id="42" />',
        '```',
      ].join('\n'),
    });
    const page = pages.get('https://acme.test/docs/billing')!;
    expect(page.title).toBe('Billing and plans');
    expect(page.sections.map((s) => [s.url, s.headings, s.text])).toEqual([
      [
        'https://acme.test/docs/billing',
        [],
        'Change your plan or cancel it.\n\nPlans renew each month.\n\n**Can I cancel at any time?**\n\n  Yes: open **Settings**, then Plan.',
      ],
      [
        'https://acme.test/docs/billing#invoices',
        ['Invoices'],
        '```jsx\nimport { Invoice } from \'@acme/sdk\';\n<Invoice id="42" />\n```',
      ],
    ]);
  });

  it("titles a page by its front matter when it has no # heading, and puts a folder's index or README at the folder's address", async () => {
    const pages = await read({
      'index.md': '# Acme\n\nStart here.',
      'guide/README.md': '---\ntitle: Guides\n---\nEvery guide.',
      'guide/install.md': "---\ntitle: 'Install Acme'\nsidebar_position: 2\n---\nRun the installer.",
      'api/index.md': '# API\n\nThe endpoints.',
      'api/README.md': '# About this folder\n\nFor contributors.',
    });
    expect([...pages.keys()].sort()).toEqual([
      'https://acme.test/docs/',
      'https://acme.test/docs/api/',
      'https://acme.test/docs/api/README',
      'https://acme.test/docs/guide/',
      'https://acme.test/docs/guide/install',
    ]);
    expect(pages.get('https://acme.test/docs/guide/install')!.title).toBe('Install Acme');
    expect(pages.get('https://acme.test/docs/guide/')!.title).toBe('Guides');
    expect(pages.get('https://acme.test/docs/api/')!.title).toBe('API');
  });

  it('reads a PDF as a page at its path, a section per PDF page, and tells why one without text is not indexed', async () => {
    const failures: [string, string][] = [];
    const pages = await read(
      {
        'manuals/install guide.pdf': pdfDocument({
          title: 'Install Acme',
          pages: [['Run the installer.'], ['Open port 8080.']],
          outline: [{ title: 'Ports', page: 2 }],
        }),
        'manuals/scan.pdf': pdfDocument({ pages: [[]] }),
      },
      (url, reason) => failures.push([url, reason]),
    );
    const pdf = pages.get('https://acme.test/docs/manuals/install guide.pdf')!;
    expect(pdf.title).toBe('Install Acme');
    expect(pdf.sections.map((s) => [s.url, s.headings, s.text])).toEqual([
      ['https://acme.test/docs/manuals/install guide.pdf#page=1', ['Page 1'], 'Run the installer.'],
      ['https://acme.test/docs/manuals/install guide.pdf#page=2', ['Ports'], 'Open port 8080.'],
    ]);
    expect([...pages.keys()]).toEqual(['https://acme.test/docs/manuals/install guide.pdf']);
    expect(failures).toEqual([
      ['https://acme.test/docs/manuals/scan.pdf', 'no text: a scanned PDF? it has no text layer to index'],
    ]);
  });
});
