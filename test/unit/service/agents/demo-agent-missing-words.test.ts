import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DemoAgent } from '../../../../service/agents/demo.js';
import { loadDocsFolder } from '../../../../service/docs/folder.js';
import type { StaticDocs } from '../../../../service/docs/ranking.js';
import { chatRecords, makeService, textOf } from '../../../fixtures/service.js';

/**
 * A small MkDocs-like site: the product's name is on every page, its requirements say Linux and
 * never Windows, so a question about Windows matches the product's name and "run" only.
 */
const PAGES = {
  'index.md': `# Widgetron

Widgetron turns your spreadsheets into dashboards. Widgetron reads CSV files and draws charts.

## System requirements

Widgetron runs on Linux with 2 GB of memory and Python 3.11 or later.
`,
  'install.md': `# Installing Widgetron

Install Widgetron with pip: \`pip install widgetron\`. Widgetron then starts with \`widgetron serve\`.

## Upgrading

Upgrade Widgetron with \`pip install --upgrade widgetron\` and restart the server.
`,
  'charts.md': `# Charts in Widgetron

Widgetron draws bar, line and pie charts from the columns of a CSV file.

## Colours

Each chart takes the colours of the dashboard's theme.
`,
};

const REQUIREMENTS = 'Widgetron runs on Linux with 2 GB of memory and Python 3.11 or later.';

let dir: string;
let docs: StaticDocs;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agent-chat-widgetron-'));
  for (const [name, text] of Object.entries(PAGES)) await writeFile(join(dir, name), text);
  docs = await loadDocsFolder(dir, 'https://widgetron.test/docs');
});
afterAll(() => rm(dir, { recursive: true, force: true }));

async function ask(message: string, options: { locale?: string; docs?: StaticDocs | null } = {}) {
  const agent = new DemoAgent(options.docs === null ? {} : { docs: options.docs ?? docs });
  const ctx = makeService({ agent });
  const { records } = await chatRecords(ctx, await ctx.session(), { message, locale: options.locale });
  const sources = records.find((r) => r.type === 'relevant_sources')?.content.relevant_sources as
    | { source_url: string }[]
    | undefined;
  return { text: textOf(records), cited: sources?.map((s) => s.source_url) ?? [] };
}

describe("the demo agent on a site's docs that never use a word of the question (decision 822)", () => {
  it('says the docs do not mention it, then quotes the closest section as the closest', async () => {
    const { text, cited } = await ask('Does Widgetron run on Windows?');
    expect(text).toBe(`The docs don't mention “Windows”.\n\nThe closest I found:\n\n${REQUIREMENTS}`);
    expect(cited[0]).toBe('https://widgetron.test/docs/#system-requirements');
  });

  it("says it in the visitor's language", async () => {
    const { text } = await ask('Does Widgetron run on Windows?', { locale: 'de' });
    expect(text).toBe(
      `Die Dokumentation erwähnt „Windows“ nicht.\n\nDas Nächstliegende, das ich gefunden habe:\n\n${REQUIREMENTS}`,
    );
  });

  it('names at most 3 missing words, in the order asked', async () => {
    const { text } = await ask('Can Widgetron read Excel, JSON, Parquet or XML files?');
    expect(text.split('\n\n')[0]).toBe("The docs don't mention “Excel”, “JSON”, or “Parquet”.");
  });

  it('says only that when no section passes the bar', async () => {
    const { text, cited } = await ask('Tell me about the weather in Paris');
    expect(text).toBe("The docs don't mention “weather” or “Paris”.");
    expect(cited).toEqual([]);
  });

  it('says it found nothing, as before, when the words are in the docs but no section passes the bar', async () => {
    const { text, cited } = await ask('Tell me about Widgetron');
    expect(text).toBe("I couldn't find that in the docs.");
    expect(cited).toEqual([]);
  });

  it('answers a question whose words are all in the docs exactly as before', async () => {
    const { text, cited } = await ask('Does Widgetron run on Linux?');
    expect(text).toBe(REQUIREMENTS);
    expect(cited[0]).toBe('https://widgetron.test/docs/#system-requirements');
  });

  it('takes a near-spelling of a word of the docs for a typo, and filler words for no subject', async () => {
    // "Linx" is one letter from the docs' "Linux": maybe what the visitor meant, so not claimed absent.
    expect((await ask('Does Widgetron run on Linx?')).text).toBe(REQUIREMENTS);
    expect((await ask('How much memory does Widgetron need?')).text).toBe(REQUIREMENTS);
  });

  it("leaves the bundled articles' demo (no docs configured) as it was", async () => {
    // Its articles are a tour of this widget (decision 647), answered by their best match as before.
    const { text, cited } = await ask('Does the widget run on Windows?', { docs: null });
    expect(text).toMatch(/^Every event is named `agent-chat-<noun>-<verb>`/);
    expect(text).not.toContain('Windows');
    expect(cited).toEqual(['https://agent-chat.example/docs/reference#events']);
  });
});
