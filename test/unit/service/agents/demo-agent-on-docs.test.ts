import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DemoAgent } from '../../../../service/agents/demo.js';
import { extractHtml } from '../../../../service/docs/html.js';
import { StaticDocs } from '../../../../service/docs/ranking.js';
import { AGENT, allRecords, makeService } from '../../../fixtures/service.js';

const SITE = join(import.meta.dirname, '../../../fixtures/docs-site/docs');

async function siteDocs() {
  const pages = await Promise.all(
    ['guide/install.html', 'reference/config.html', 'guide/linked-only.html'].map(async (path) =>
      extractHtml(await readFile(join(SITE, path), 'utf8'), `https://acme.test/docs/${path}`),
    ),
  );
  return new StaticDocs(pages.flatMap((page) => page.sections));
}

describe('the demo agent on the configured docs, offline', () => {
  it('quotes the best section and cites sections with their heading, anchor and score', async () => {
    const ctx = makeService({ agent: new DemoAgent({ docs: await siteDocs() }) });
    const records = await allRecords(
      await ctx.call('POST', `${AGENT}/chat/`, {
        token: await ctx.session('alice'),
        body: { integration_id: 'int_demo', message: 'Which database and how much memory does Acme need?' },
      }),
    );
    const [first, ...rest] = records.find((r) => r.type === 'relevant_sources')!.content.relevant_sources as {
      source_url: string;
    }[];
    expect(first).toEqual({
      title: 'Installing Acme',
      subtitle: null,
      source_url: 'https://acme.test/docs/guide/install.html#requirements',
      source_type: 'documentation',
      section: 'Requirements',
      score: expect.any(Number),
    });
    expect(rest.every((s: { source_url: string }) => !s.source_url.includes('/guide/install.html'))).toBe(
      true,
    );
    const text = records
      .filter((r) => r.type === 'partial_answer')
      .map((r) => r.content.text)
      .join('');
    expect(text).toBe('You need `npm` and a database.\n\n- PostgreSQL 15 or later\n\n- 2 GB of memory');
  });

  it('finds a setting by its name as typed, and says so plainly when the docs do not cover a question', async () => {
    const agent = new DemoAgent({ docs: await siteDocs() });
    const [hit] = await agent.search('what is max_locks_per_transaction for');
    expect(hit.section.url).toBe('https://acme.test/docs/reference/config.html#max_locks_per_transaction');
    expect(await agent.search('Tell me about the weather in Paris')).toEqual([]);
  });

  it("answers from a small site's right section though its words weigh less than a manual's", async () => {
    // Eight sections: "migrate" is in two of them, so it weighs 2.4, under the bar of 5 that a
    // manual's thousands of sections reach with one matching word.
    const agent = new DemoAgent({ docs: await siteDocs() });
    const [hit] = await agent.search('how do I migrate');
    expect(hit.section.url).toBe('https://acme.test/docs/guide/install.html#upgrading');
    expect(hit.match).toBeLessThan(5);
    // A manual's weak match is still no answer: the bar is the same 5 there.
    const filler = Array.from({ length: 400 }, (_, i) => ({
      url: `https://acme.test/docs/page${i}.html`,
      pageUrl: `https://acme.test/docs/page${i}.html`,
      title: `Page ${i}`,
      headings: [],
      text: `Topic number ${i}: ${i % 2 ? 'migrate the tables' : 'other things'} and more words.`,
    }));
    const manual = new DemoAgent({ docs: new StaticDocs(filler) });
    expect((await new StaticDocs(filler).search('how do I migrate', 1))[0].match).toBeLessThan(5);
    expect(await manual.search('how do I migrate')).toEqual([]);
  });

  it("says what the site's docs lack without suggesting this widget's topics", async () => {
    const ctx = makeService({ agent: new DemoAgent({ docs: await siteDocs() }) });
    const records = await allRecords(
      await ctx.call('POST', `${AGENT}/chat/`, {
        token: await ctx.session('alice'),
        body: { integration_id: 'int_demo', message: 'Tell me about the weather in Paris' },
      }),
    );
    const text = records
      .filter((r) => r.type === 'partial_answer')
      .map((r) => r.content.text)
      .join('');
    // The site's visitors ask about the site: the session endpoint and theming are not its topics.
    // What it says is which of the question's words the site's docs never use (decision 822).
    expect(text).toBe("The docs don't mention “weather” or “Paris”.");
  });

  it("answers a follow-up from the subject of the thread's earlier question", async () => {
    const section = (page: string, heading: string, text: string) => ({
      url: `https://acme.test/docs/${page}#${heading.toLowerCase().replace(/\W+/g, '-')}`,
      pageUrl: `https://acme.test/docs/${page}`,
      title: page,
      headings: [heading],
      text,
    });
    const docs = new StaticDocs([
      section(
        'backups',
        'Nightly backups',
        'Acme writes a backup of the database every night to the backup folder.',
      ),
      section('backups', 'Restoring', 'Restore a backup with acme restore and the name of the backup file.'),
      section('exports', 'Restore', 'Restore an export: acme restore reads it back.'),
    ]);
    const ctx = makeService({ agent: new DemoAgent({ docs, minScore: 0 }) });
    const token = await ctx.session('alice');
    const cited = (reply: Awaited<ReturnType<typeof ctx.chat>>) =>
      reply.events.flatMap((e) => (e.type === 'sources' ? e.sources.map((s) => s.source_url) : []))[0];
    const first = await ctx.chat(token, 'how often does Acme make a backup of the database?');
    expect(cited(first)).toBe('https://acme.test/docs/backups#nightly-backups');
    // Asked alone, "it" could be anything restored; in the thread it is the backup.
    expect(cited(await ctx.chat(token, 'how do I restore it?'))).toBe(
      'https://acme.test/docs/exports#restore',
    );
    expect(cited(await ctx.chat(token, 'how do I restore it?', first.threadId))).toBe(
      'https://acme.test/docs/backups#restoring',
    );
  });
});
