import { readFile } from 'node:fs/promises';
import { parse, YAMLParseError } from 'yaml';
import { type Agent, AgentError } from './agents/types.js';
import type { Source } from '../contract/types.js';
import { referredTo } from './docs/ranking.js';
import { parseRobots } from './docs/robots.js';
import { suggestSynonym } from './docs/synonyms.js';
import type { DocsSearch } from './docs/types.js';
import type { CrawlFailureRecord } from './storage/records.js';
import type { MessageRecord } from './storage/types.js';

/**
 * `agent-chat-service search "question"` and `agent-chat-service test answers.yaml`: what the
 * docs give for a question, and answer tests a site owner runs in CI (decision 297). Both go
 * through the library and the agent a chat uses.
 */

type Print = (line: string) => void;

/** The ranked sections of a project's `docs` for `question`, with their scores, as a chat's retrieval sees them. */
export async function searchCommand(
  docs: DocsSearch,
  question: string,
  print: Print,
  { limit = 10, earlier = '' }: { limit?: number; earlier?: string } = {},
): Promise<number> {
  if (!question.trim()) {
    print('usage: agent-chat-service search "a question"');
    return 2;
  }
  const hits = await docs.search(question, limit, earlier.trim() || undefined);
  if (!hits.length) {
    print(
      "No section matches. (Are the docs crawled? agent-chat-service --docs URL, or the console's Sources page.)",
    );
    return 1;
  }
  hits.forEach((hit, i) => {
    const where = [hit.section.title, ...hit.section.headings].join(' › ');
    print(
      `${String(i + 1).padStart(2)}. score ${hit.score.toFixed(4)}  match ${hit.match.toFixed(2).padStart(6)}  ${where}`,
    );
    print(`    ${hit.section.url}`);
  });
  const also = (await docs.expansions?.(question)) ?? [];
  if (also.length) print(`Also searched for: ${also.join(', ')}`);
  // As the console's search says it (decision 450): an operator sees whether a follow-up leaned on
  // the question before it, or changed the subject and was searched alone.
  if (earlier.trim())
    print(
      referredTo(question, earlier.trim())
        ? `Searched after the earlier question: "${referredTo(question, earlier.trim())}"`
        : 'The question does not refer back, so it was searched alone.',
    );
  return 0;
}

export interface AnswerTest {
  question: string;
  /** Pages (or sections, with `#`) at least one of which must be among the sources. */
  urls: string[];
  /** Words the answer must contain, each (case-insensitive). */
  phrases: string[];
  /** The visitor's question before this one in the conversation: `question` is its follow-up (decision 450). */
  earlier?: string;
}

/** The keys of one answer test (`url` is `urls` with one page). */
const TEST_KEYS = ['question', 'urls', 'url', 'phrases', 'earlier'];

/** A test file's questions; throws with the file's line for what is wrong. */
export function parseAnswerTests(text: string, file: string, base?: string): AnswerTest[] {
  let value: unknown;
  try {
    value = parse(text);
  } catch (error) {
    if (error instanceof YAMLParseError) {
      const line = error.linePos?.[0].line;
      throw new Error(`${file}${line ? `:${line}` : ''}: ${error.message.split('\n')[0]}`);
    }
    throw error;
  }
  const list =
    value && typeof value === 'object' && !Array.isArray(value)
      ? (value as { questions?: unknown }).questions
      : value;
  if (!Array.isArray(list) || !list.length)
    throw new Error(`${file}: expected a list of questions (- question: …, urls: […]).`);
  return list.map((item, i) => {
    const where = `${file}: question ${i + 1}`;
    if (!item || typeof item !== 'object') throw new Error(`${where} is not a mapping.`);
    // A misspelt key would test less than its author wrote ("phrase:" checks no words): refused
    // (decision 605).
    const unknown = Object.keys(item).find((key) => !TEST_KEYS.includes(key));
    if (unknown !== undefined)
      throw new Error(
        `${where} has "${unknown}", which a test does not take: use ${TEST_KEYS.map((key) => `"${key}"`).join(', ')}.`,
      );
    const { question, urls, url, phrases, earlier } = item as Record<string, unknown>;
    if (typeof question !== 'string' || !question.trim()) throw new Error(`${where} has no "question".`);
    const wanted = urls ?? (url === undefined ? [] : [url]);
    if (!Array.isArray(wanted) || !wanted.length || !wanted.every((u) => typeof u === 'string'))
      throw new Error(`${where} needs "urls": the page(s) that must be among the sources.`);
    if (phrases !== undefined && (!Array.isArray(phrases) || !phrases.every((p) => typeof p === 'string')))
      throw new Error(`${where}: "phrases" must be a list of strings.`);
    if (earlier !== undefined && typeof earlier !== 'string')
      throw new Error(`${where}: "earlier" must be the question asked before it.`);
    return {
      question,
      urls: wanted.map((u) => {
        try {
          return new URL(u, base).href;
        } catch {
          throw new Error(
            `${where}: ${u} is not a URL${base ? '' : ' (relative URLs need a --docs site, a folder with an https:// --docs-url, or a website among the project sources, to resolve against)'}.`,
          );
        }
      }),
      phrases: (phrases as string[] | undefined) ?? [],
      ...(earlier?.trim() && { earlier }),
    };
  });
}

const page = (url: string) => url.split('#')[0];

/** Whether a source is one of the wanted pages (or the wanted section, when a URL names one). */
const matches = (source: Source, wanted: string) =>
  wanted.includes('#') ? source.source_url === wanted : page(source.source_url) === page(wanted);

/**
 * A test that names a section (`page#anchor`) whose page was cited at other sections: the
 * anchor is wrong, or the page's headings have no ids, which its owner fixes in the test, not
 * in the docs' words (a synonym would be no help).
 */
function citedElsewhere(sources: Source[], urls: readonly string[]): string | null {
  for (const wanted of urls.filter((url) => url.includes('#'))) {
    const cited = sources.filter((source) => page(source.source_url) === page(wanted));
    if (!cited.length) continue;
    const anchor = (url: string) => url.slice(page(url).length);
    const want = anchor(wanted);
    const at = [...new Set(cited.map((source) => anchor(source.source_url)).filter((a) => a.length > 1))];
    return at.length
      ? `the page is cited at ${at.join(', ')}, not ${want}: fix the anchor`
      : `the page is cited, not ${want}: its headings have no id, so name the page alone`;
  }
  return null;
}

/**
 * A test's page cited at other sections than the one it names: a wrong anchor (decision 714),
 * or, when the index holds that section, the question's words found another (decision 806),
 * with the section to suggest a synonym group from.
 */
async function citedInstead(docs: DocsSearch, sources: Source[], test: AnswerTest) {
  const cited = citedElsewhere(sources, test.urls);
  const held = cited ? await heldSection(docs, test.urls) : null;
  if (!cited || !held) return { elsewhere: cited };
  const at = cited.replace(/: fix the anchor$/, '');
  return { elsewhere: `${at}, which its words miss`, held };
}

/** The first section a test names (`page#anchor`) that the index holds; null when none is. */
async function heldSection(docs: DocsSearch, urls: readonly string[]) {
  for (const wanted of urls.filter((url) => url.includes('#'))) {
    const found = await docs.page?.(page(wanted));
    const section = found?.sections.find((s) => s.url === wanted);
    // Its synonym group is named by the section's heading, the words the question wanted.
    if (section) return { title: section.heading, text: section.text };
  }
  return null;
}

/**
 * Runs every test through `agent`; prints a table; 0 when all pass, 1 when one misses. A page
 * missed because the index does not hold it is said so, with why where the site tells it (its
 * robots.txt, read through `fetchImpl`, for pages of the `sites` crawled; decision 460).
 */
export async function testCommand(
  agent: Agent,
  docs: DocsSearch,
  tests: AnswerTest[],
  print: Print,
  sites: readonly string[] = [],
  fetchImpl: typeof fetch = fetch,
  stopped: readonly StoppedCrawl[] = [],
  crawlFailures: readonly CrawlFailureRecord[] = [],
): Promise<number> {
  const rows: string[][] = [['#', 'result', 'rank', 'question', 'why']];
  const notes: Notes = { suggested: [], unindexed: [], fixes: new Map() };
  let failed = 0;
  for (const [i, test] of tests.entries()) {
    const { sources, text, error, hint } = await ask(agent, docs, test);
    const rank = sources.findIndex((source) => test.urls.some((wanted) => matches(source, wanted)));
    const { elsewhere, held } = rank < 0 ? await citedInstead(docs, sources, test) : {};
    const miss = held
      ? { synonyms: suggestSynonym(test.question, held)?.join(', ') }
      : rank < 0 && !error && !elsewhere
        ? await explainMiss(docs, test, sites, fetchImpl, stopped, crawlFailures)
        : null;
    if (miss?.synonyms) notes.suggested.push(`  ${miss.synonyms}  (question ${i + 1})`);
    if (miss?.unindexed) notes.unindexed.push(`  ${miss.unindexed}  (question ${i + 1})`);
    if (hint) notes.fixes.set(hint, [...(notes.fixes.get(hint) ?? []), i + 1]);
    const absent = miss?.absent;
    const missing = test.phrases.filter((phrase) => !text.toLowerCase().includes(phrase.toLowerCase()));
    const why = error
      ? `the answer failed: ${error}`
      : absent
        ? `not in the index (${absent})`
        : elsewhere
          ? elsewhere
          : rank < 0
            ? `not among the sources (${sources.map((s) => s.source_url).join(', ') || 'none'})`
            : missing.length
              ? `the answer lacks ${missing.map((p) => `"${p}"`).join(', ')}`
              : `${sources[rank].title}${sources[rank].section ? ` › ${sources[rank].section}` : ''}`;
    const ok = !error && rank >= 0 && !missing.length;
    if (!ok) failed++;
    rows.push([String(i + 1), ok ? 'pass' : 'MISS', rank >= 0 ? String(rank + 1) : '-', test.question, why]);
  }
  const widths = rows[0].map((_, c) =>
    Math.min(c === 3 ? 60 : c === 4 ? 100 : 8, Math.max(...rows.map((r) => r[c].length))),
  );
  for (const row of rows)
    print(
      row
        .map((cell, c) =>
          cell.length > widths[c] ? `${cell.slice(0, widths[c] - 1)}…` : cell.padEnd(widths[c]),
        )
        .join('  ')
        .trimEnd(),
    );
  print(`${tests.length - failed} passed, ${failed} failed`);
  printNotes(notes, print);
  return failed ? 1 : 0;
}

/**
 * A source whose last crawl stopped before it read the site (decision 606): the failure that
 * stopped it, as its Sources page lists it.
 */
export interface StoppedCrawl {
  location: string;
  failure: CrawlFailureRecord;
}

/** How a crawl came to a page it failed, as the Sources page says it (decision 707). */
const REFERRED = { link: 'linked from', sitemap: 'listed in the sitemap', redirect: 'redirected from' };

/** Why a crawl failed a page, and the page that linked it where one did. */
const failureWhy = ({ reason, from }: CrawlFailureRecord) =>
  `${reason}${from ? ` (${REFERRED[from.by]} ${from.url})` : ''}`;

/** A crawl's failure on one line: the page, why, and the page that linked it where one did. */
export const failureText = (failure: CrawlFailureRecord): string => `${failure.url}: ${failureWhy(failure)}`;

/** What the table's rows leave to say: synonyms to try, pages not indexed, what to fix for answers that failed. */
interface Notes {
  suggested: string[];
  unindexed: string[];
  /** The agent's hint for the operator (as its `agent_failed` log line has it), and the questions it failed. */
  fixes: Map<string, number[]>;
}

function printNotes({ suggested, unindexed, fixes }: Notes, print: Print): void {
  const section = (heading: string, lines: string[]) => {
    if (!lines.length) return;
    print('');
    print(heading);
    lines.forEach((line) => print(line));
  };
  section(
    "Synonyms that may bring a missed page: the question's words the page never uses, and the page's name (the console's Synonyms box, or --docs-synonyms):",
    suggested,
  );
  section(
    "Pages the index does not hold (each crawl's failures and exclusions are on the Sources page):",
    unindexed,
  );
  section(
    'What to fix for the answers that failed (as the service logs it):',
    [...fixes].map(
      ([hint, questions]) =>
        `  ${hint}  (question${questions.length > 1 ? 's' : ''} ${questions.join(', ')})`,
    ),
  );
}

/**
 * The robots.txt address that keeps crawlers out of `url`, when `url` is a page of one of the
 * `sites` crawled and that file says so; null otherwise (a folder's pages have none).
 */
async function robotsBlocked(url: string, sites: readonly string[], fetchImpl: typeof fetch) {
  const { origin } = new URL(url);
  if (!sites.some((site) => URL.canParse(site) && new URL(site).origin === origin)) return null;
  const robotsUrl = `${origin}/robots.txt`;
  try {
    const response = await fetchImpl(robotsUrl, { signal: AbortSignal.timeout(10_000) });
    if (!response.ok) return null;
    return parseRobots(await response.text(), robotsUrl).allowed(url) ? null : robotsUrl;
  } catch {
    // Unreadable now: nothing more to say than that no crawl read it.
    return null;
  }
}

/**
 * Why a test's page is not among its sources: the synonym group its words suggest when the index
 * holds the page; when it does not, that it is not in the index, and why where the site says.
 */
async function explainMiss(
  docs: DocsSearch,
  test: AnswerTest,
  sites: readonly string[],
  fetchImpl: typeof fetch,
  stopped: readonly StoppedCrawl[],
  failed: readonly CrawlFailureRecord[],
): Promise<{ synonyms?: string; absent?: string; unindexed?: string }> {
  const held = await heldPage(docs, test);
  if (held) return { synonyms: suggestSynonym(test.question, held)?.join(', ') };
  if (held === null) return {};
  const url = page(test.urls[0]);
  // A crawl that stopped (its site unreachable, robots.txt failing) is why, not the site's links.
  const stop = stopped.find(
    (crawl) => URL.canParse(crawl.location) && url.startsWith(new URL(crawl.location).origin),
  );
  if (stop)
    return {
      absent: 'its crawl stopped',
      unindexed: `${url}: the crawl of ${stop.location} stopped at ${failureText(stop.failure)}`,
    };
  // A page the last crawl failed: why, and the page whose link to fix (decision 707).
  const failure = failed.find((f) => f.url === url);
  if (failure)
    return {
      absent: 'the last crawl failed it',
      unindexed: `${url}: the last crawl failed it: ${failureWhy(failure)}`,
    };
  const robots = await robotsBlocked(url, sites, fetchImpl);
  return robots
    ? {
        absent: 'robots.txt keeps crawlers out',
        unindexed: `${url}: ${robots} keeps crawlers out of it; a "User-agent: agent-chat" group that allows it lets this crawler in`,
      }
    : {
        absent: 'never crawled',
        unindexed: `${url}: no crawl read it; is it linked from the site or its sitemap, and not excluded?`,
      };
}

/**
 * The first of a test's pages the index holds (its synonym group comes from it); false when the
 * index holds none of them, null when the docs cannot tell.
 */
async function heldPage(docs: DocsSearch, test: AnswerTest) {
  if (!docs.page) return null;
  for (const url of test.urls) {
    const found = await docs.page(page(url));
    if (found) return found;
  }
  return false;
}

/** One question through the agent, as a chat asks it of the project's docs: what it cited and said, or why it failed. */
async function ask(
  agent: Agent,
  docs: DocsSearch,
  { question, earlier }: AnswerTest,
): Promise<{ sources: Source[]; text: string; error: string | null; hint?: string }> {
  const sources: Source[] = [];
  let text = '';
  try {
    for await (const out of agent.answer({
      message: question,
      history: earlier ? [asked(earlier)] : [],
      tools: [],
      rounds: [],
      partial: '',
      docs,
      signal: AbortSignal.timeout(120_000),
    })) {
      if (out.type === 'sources') sources.push(...out.sources);
      else if (out.type === 'text') text += out.text;
    }
  } catch (caught) {
    const error = caught instanceof Error ? caught.message : String(caught);
    // The visitor's words go in the table; the operator's fix, with its code, below it.
    const hint = caught instanceof AgentError && caught.hint ? `${caught.code}: ${caught.hint}` : undefined;
    return { sources, text, error, hint };
  }
  return { sources, text, error: null };
}

/** The earlier question of a follow-up's test, as its thread would hold it. */
const asked = (content: string): MessageRecord => ({
  id: 'earlier',
  role: 'user',
  content,
  sources: [],
  createdAt: 0,
  updatedAt: 0,
  status: 'complete',
  toolCalls: [],
  activity: [],
  uncertain: false,
});

/** Reads and parses a test file; relative URLs resolve against `base` (the first site given with --docs). */
export async function readAnswerTests(file: string, base?: string): Promise<AnswerTest[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    throw new Error(`${file} cannot be read.`);
  }
  return parseAnswerTests(text, file, base);
}
