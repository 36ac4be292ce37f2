/** A PDF as a page of sections: one per PDF page at `#page=N`, headed by the outline, titled by the file's own Title. */
import { deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { MAX_PDF_INFLATED_BYTES } from '../../../../service/kernel/pdf.js';
import { extractPdf, NO_TEXT } from '../../../../service/docs/pdf.js';
import { StaticDocs } from '../../../../service/docs/ranking.js';
import { sourcesOf } from '../../../../service/agents/docs-prompt.js';
import type { ExtractedPage } from '../../../../service/docs/types.js';
import { lockedPdf, pdfDocument, pdfFile } from '../../../fixtures/files.js';

const URL = 'https://acme.test/manuals/guide.pdf';

/** The installation guide a site links: a cover, a contents page, chapters with bookmarks. */
const GUIDE = {
  title: 'Acme Installation Guide',
  pages: [
    ['Acme Installation Guide', 'Version 2'],
    ['Contents', 'Requirements . . . . . . . . . 3'],
    [
      '1 Installation',
      '',
      'Read this chapter before you start.',
      '',
      '1.1 Requirements',
      'You need PostgreSQL 15.',
    ],
    ['The server needs 2 GB of memory and a disk of 10 GB.'],
    ['Installing on Windows: run the setup program as an administrator.', '', '2 Upgrading'],
    ['2.1 Rolling back', 'Run acme migrate --to 1 to roll back a failed upgrade.'],
  ],
  outline: [
    {
      title: 'Installation',
      page: 3,
      items: [
        { title: 'Requirements', page: 3, down: 100 },
        // At its page's first line.
        { title: 'Windows', page: 5, down: 40 },
      ],
    },
    // At its page's third line: the page's part below it is Upgrading's.
    { title: 'Upgrading', page: 5, down: 66, items: [{ title: 'Rolling back', page: 6 }] },
  ],
};

async function page(bytes: Uint8Array, fallback = 'guide.pdf'): Promise<ExtractedPage> {
  const read = await extractPdf(bytes, URL, fallback);
  if (typeof read === 'string') throw new Error(read);
  return read;
}

describe('extractPdf', () => {
  it("gives a section per bookmark's part of each page at #page=N, headed by the bookmark with its parents", async () => {
    const pdf = await page(pdfDocument(GUIDE));
    expect(pdf.title).toBe('Acme Installation Guide');
    expect(pdf.sections.map((s) => [s.url.slice(URL.length), s.headings, s.text])).toEqual([
      // Before the first bookmark: the page's number.
      ['#page=1', ['Page 1'], 'Acme Installation Guide Version 2'],
      ['#page=2', ['Page 2'], 'Contents Requirements … 3'],
      // A chapter and its first section on one page: a section each, where each starts.
      ['#page=3', ['Installation'], '1 Installation\n\nRead this chapter before you start.'],
      ['#page=3', ['Installation', 'Requirements'], '1.1 Requirements You need PostgreSQL 15.'],
      // A page with no bookmark of its own goes on under the last one.
      ['#page=4', ['Installation', 'Requirements'], 'The server needs 2 GB of memory and a disk of 10 GB.'],
      [
        '#page=5',
        ['Installation', 'Windows'],
        'Installing on Windows: run the setup program as an administrator.',
      ],
      ['#page=5', ['Upgrading'], '2 Upgrading'],
      [
        '#page=6',
        ['Upgrading', 'Rolling back'],
        '2.1 Rolling back Run acme migrate --to 1 to roll back a failed upgrade.',
      ],
    ]);
    expect(pdf.sections.every((s) => s.pageUrl === URL && s.title === 'Acme Installation Guide')).toBe(true);
    expect(pdf).toMatchObject({ links: [], canonical: null, noindex: false, nofollow: false });
  });

  it("joins a part that is only its heading to the next, under the next's heading", async () => {
    const pdf = await page(
      pdfDocument({
        pages: [
          [
            '3 Security',
            '3.1 Keys',
            'Rotate keys every 90 days.',
            '',
            '3.2 Audit',
            'Every change is logged.',
          ],
        ],
        outline: [
          {
            title: 'Security',
            page: 1,
            items: [
              { title: 'Keys', page: 1, down: 54 },
              { title: 'Audit', page: 1, down: 96 },
            ],
          },
        ],
      }),
    );
    expect(pdf.sections.map((s) => [s.headings, s.text])).toEqual([
      [['Security', 'Keys'], '3 Security 3.1 Keys Rotate keys every 90 days.'],
      [['Security', 'Audit'], '3.2 Audit Every change is logged.'],
    ]);
  });

  it('takes the headings of a PDF without bookmarks from its type: larger lines, a larger size above a smaller', async () => {
    const pdf = await page(
      pdfDocument({
        pages: [
          [
            { heading: 'Installation', size: 20 },
            'Read this chapter before you start.',
            { heading: 'Requirements', size: 16 },
            'You need PostgreSQL 15.',
          ],
          ['The server needs 2 GB of memory.', { heading: 'Upgrading', size: 20 }, 'Back up first.'],
        ],
      }),
    );
    expect(pdf.sections.map((s) => [s.url.slice(URL.length), s.headings, s.text])).toEqual([
      ['#page=1', ['Installation'], 'Installation\n\nRead this chapter before you start.'],
      ['#page=1', ['Installation', 'Requirements'], 'Requirements\n\nYou need PostgreSQL 15.'],
      ['#page=2', ['Installation', 'Requirements'], 'The server needs 2 GB of memory.'],
      ['#page=2', ['Upgrading'], 'Upgrading\n\nBack up first.'],
    ]);
  });

  it('keeps the text as plain paragraphs: hyphenated line ends joined, spaces and dot leaders collapsed', async () => {
    const pdf = await page(
      pdfDocument({
        pages: [
          [
            'The instal-',
            'lation takes    five minutes',
            'on a well-',
            'Known machine.',
            '',
            'A second paragraph.',
          ],
          ['Requirements . . . . . . . . 3'],
        ],
      }),
    );
    expect(pdf.sections.map((s) => s.text)).toEqual([
      'The installation takes five minutes on a well- Known machine.\n\nA second paragraph.',
      'Requirements … 3',
    ]);
  });

  it('titles a PDF by its file name, as words, when its own Title is none or a converter’s', async () => {
    const outline = [{ title: 'I User Manual', page: 1 }];
    const pages = [['Some text.']];
    for (const title of ['Microsoft Word - guide.docx', 'untitled', '  ', 'guide-v2.pdf'])
      expect((await page(pdfDocument({ title, pages, outline }), 'acme_setup-guide.pdf')).title).toBe(
        'acme setup guide',
      );
    expect((await page(pdfDocument({ pages }), 'setup guide.pdf')).title).toBe('setup guide');
  });

  it('keeps lines set in a fixed-width font as a code block, with their line breaks and indentation', async () => {
    const pdf = await page(
      pdfDocument({
        pages: [
          [
            'Build it from source with these options:',
            { code: 'cmake -DBUILD_SHARED_LIBS=OFF \\' },
            { code: '-Duse_libclang=YES ..', column: 2 },
            'then run make install. In Python:',
            { code: 'with open(path) as f:' },
            { code: 'for line in f:', column: 4 },
            { code: 'print(line)', column: 8 },
          ],
        ],
      }),
    );
    // The indentation is the line's position on the page, in the font's characters: pdf.js's
    // text has none, and Python without it is other code.
    expect(pdf.sections[0].text).toBe(
      'Build it from source with these options:\n\n```\ncmake -DBUILD_SHARED_LIBS=OFF \\\n  -Duse_libclang=YES ..\n```\n\n' +
        'then run make install. In Python:\n\n```\nwith open(path) as f:\n    for line in f:\n        print(line)\n```',
    );
  });

  it("keeps a code line whose lone symbol is set in the text's font, as LaTeX sets a backslash", async () => {
    const pdf = await page(
      pdfDocument({
        pages: [
          [
            'Document the class:',
            { code: ['/*! ', '\\', 'class Example'] },
            { code: ' * The class description.' },
            { code: '*/', column: 1 },
            { code: '{' },
          ],
        ],
      }),
    );
    expect(pdf.sections[0].text).toBe(
      'Document the class:\n\n```\n/*! \\class Example\n * The class description.\n */\n{\n```',
    );
  });

  it('drops the running heads and feet a PDF repeats at the top and bottom of its pages, numbers aside', async () => {
    const body = [
      'Chapter 4 opens here.',
      'asn1_der_coding encodes a structure.',
      'Chapter 4: Functions on its own line.',
    ];
    const pages = Array.from({ length: 6 }, (_, i) => [
      `Chapter 4: Functions ${i + 10}`,
      '',
      ...(i === 5 ? body : [`Function ${i} does one thing.`]),
      '',
      `${i + 10}`,
    ]);
    const pdf = await page(pdfDocument({ pages }));
    expect(pdf.sections.map((s) => s.text)).toEqual([
      ...[0, 1, 2, 3, 4].map((i) => `Function ${i} does one thing.`),
      // A line like the head, but within the page's text, stays.
      body.join(' '),
    ]);
  });

  it('gives no section for a page without text, and no page for a PDF without any', async () => {
    const pdf = await page(pdfDocument({ pages: [['Cover text.'], [], ['Last page.']] }));
    expect(pdf.sections.map((s) => s.url.slice(URL.length))).toEqual(['#page=1', '#page=3']);
    expect(await extractPdf(pdfDocument({ pages: [[], []] }), URL, 'scan.pdf')).toBe(NO_TEXT);
    expect(NO_TEXT).toBe('no text: a scanned PDF? it has no text layer to index');
    expect(await extractPdf(new TextEncoder().encode('<html>not a pdf</html>'), URL, 'x.pdf')).toBe(
      'not a PDF that could be read',
    );
  });

  it('cuts a long page into parts of at most 4,000 characters, each at the page’s address', async () => {
    // 45 lines of 100 characters, a paragraph every 9: all on the page, 4,500 characters of text.
    const lines = Array.from({ length: 45 }, (_, i) => `Line ${i} `.padEnd(100, 'of the upgrade steps '));
    const pdf = await page(
      pdfDocument({ pages: [lines.flatMap((line, i) => (i % 9 === 8 ? [line, ''] : [line]))] }),
    );
    expect(pdf.sections.length).toBeGreaterThan(1);
    for (const section of pdf.sections) {
      expect(section.url).toBe(`${URL}#page=1`);
      expect(section.text.length).toBeLessThanOrEqual(4_000);
    }
    expect(pdf.sections.map((s) => s.text).join('\n\n')).toContain('Line 44 of the upgrade');
  });

  it('says an encrypted PDF (one that needs a password among them) is not indexed, and why', async () => {
    expect(await extractPdf(lockedPdf(), URL, 'guide.pdf')).toBe(
      'the PDF is encrypted (a password or permissions): publish it without encryption to index it',
    );
  });

  it('refuses a PDF whose streams would inflate past the bound (a zip bomb), reading nothing', async () => {
    const content = new Uint8Array(
      deflateSync(Buffer.concat([Buffer.alloc(MAX_PDF_INFLATED_BYTES), Buffer.from('BT (x) Tj ET')])),
    );
    const head = Uint8Array.from(`<< /Length ${content.length} /Filter /FlateDecode >>\nstream\n`, (c) =>
      c.charCodeAt(0),
    );
    const stream = new Uint8Array([
      ...head,
      ...content,
      ...Uint8Array.from('\nendstream', (c) => c.charCodeAt(0)),
    ]);
    const bomb = pdfFile([
      '<< /Type /Catalog /Pages 2 0 R >>',
      '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
      '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R >>',
      stream,
    ]);
    expect(bomb.length).toBeLessThan(100_000);
    expect(await extractPdf(bomb, URL, 'bomb.pdf')).toBe('its streams would inflate past 64 MB: not read');
  });

  it("is cited by its pages among a site's HTML pages: each PDF page that answers is a source", async () => {
    const pdf = await page(pdfDocument(GUIDE));
    const html = ['Changelog', 'Support', 'Security'].map((name) => ({
      url: `https://acme.test/${name.toLowerCase()}.html`,
      pageUrl: `https://acme.test/${name.toLowerCase()}.html`,
      title: name,
      headings: [],
      text: `${name} of Acme: the server, its memory, Windows and upgrades are described in the guide.`,
    }));
    const docs = new StaticDocs([...html, ...pdf.sections]);
    const hits = await docs.search(
      'How much memory does the server need, and how do I install it on Windows?',
    );
    const cited = sourcesOf(hits).map((source) => source.source_url);
    expect(cited).toEqual(expect.arrayContaining([`${URL}#page=4`, `${URL}#page=5`]));
  });

  it('is searched like any page: a question finds the page that answers it', async () => {
    const pdf = await page(pdfDocument(GUIDE));
    const docs = new StaticDocs(pdf.sections);
    const [first] = await docs.search('How do I roll back a failed upgrade?');
    expect(first.section.url).toBe(`${URL}#page=6`);
    expect(first.section.headings).toEqual(['Upgrading', 'Rolling back']);
    const [memory] = await docs.search('how much memory does the server need');
    expect(memory.section.url).toBe(`${URL}#page=4`);
  });
});
