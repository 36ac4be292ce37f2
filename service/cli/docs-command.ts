import {
  type AnswerTest,
  failureText,
  readAnswerTests,
  searchCommand,
  testCommand,
  type StoppedCrawl,
} from '../docs-cli.js';
import type { DocsLibrary } from '../docs/library.js';
import { memoryStores } from '../storage/memory/index.js';
import type { Stores } from '../storage/types.js';
import { DataDirLockedError, openStorage } from '../node.js';
import type { DocsFlags } from './docs-flags.js';
import { type Flags, type StoreAt, storeAt } from './flags.js';

/** How the program runs `search` and `test` (../docs-cli.ts): on which store, after which crawls, saying which stopped. */

/**
 * `search` and `test`: the service's database (or, while a running service holds the embedded
 * one, this run's memory with the `--docs` sources crawled into it), the same library and agent
 * as a chat.
 */
export async function docsCommand(
  command: 'search' | 'test',
  args: string[],
  docs: DocsFlags,
  values: Flags,
): Promise<number> {
  const print = (line: string) => console.log(line);
  if (args.length !== 1) {
    console.error(
      command === 'search'
        ? 'usage: agent-chat-service search "QUESTION" [--earlier "QUESTION"] [--docs LOCATION]'
        : 'usage: agent-chat-service test FILE.yaml [--docs LOCATION]',
    );
    return 2;
  }
  // Relative URLs are read against the first site, else the address a folder's pages are published
  // at (decision 461); without either, against the project's first stored website (decision 803).
  const sites = docs.locations.filter(isSite);
  const published = isSite(docs.folderUrl) ? docs.folderUrl.replace(/\/?$/, '/') : undefined;
  const flagBase = sites[0] ?? (docs.locations.length ? published : undefined);
  // The tests are read before the store opens, so a missing or malformed file fails at once and
  // creates no database; without a flag's base their relative URLs are read against a stand-in
  // here, and again against the stored site once the store is open (decision 803).
  let tests = command === 'test' ? await testsIn(args[0], flagBase ?? STAND_IN_BASE) : [];
  if (tests === null) return 2;
  const storage = await commandStore(storeAt(values), docs.locations.length > 0);
  // Logs go to stderr: stdout is the table.
  const { library, agent } = await docs.setup(storage, (entry) => console.error(JSON.stringify(entry)));
  try {
    const stored = (await library.sources(docs.project)).map((source) => source.location).filter(isSite);
    if (!docs.locations.length && (await wrongProject(library, docs.project))) return 2;
    if (command === 'test' && !flagBase) tests = await testsIn(args[0], stored[0]);
    if (tests === null) return 2;
    // Sources never crawled (or due) are crawled first, so a first run has something to read.
    await library.tick();
    const projectDocs = library.project(docs.project);
    const { stopped, failed } = await lastCrawls(library, docs.project);
    return command === 'search'
      ? await searchCommand(projectDocs, args[0], print, { earlier: values.earlier })
      : await testCommand(
          agent,
          projectDocs,
          tests,
          print,
          [...new Set([...sites, ...stored])],
          fetch,
          stopped,
          failed,
        );
  } finally {
    await library.close();
    await storage.close();
  }
}

const isSite = (location: string) => /^https?:\/\//.test(location);
/** What a test file's relative URLs are first read against when no flag gives a site: never fetched. */
const STAND_IN_BASE = 'https://stand-in.invalid/';

/** The file's answer tests, or null once what is wrong with it is said: 2, not 1 as a miss (decision 297). */
async function testsIn(file: string, base: string | undefined): Promise<AnswerTest[] | null> {
  try {
    return await readAnswerTests(file, base);
  } catch (error) {
    console.error(`agent-chat-service: ${error instanceof Error ? error.message : String(error)}`);
    return null;
  }
}

/**
 * Whether the flag project has no sources while others in the store have: a `--project` left
 * out (the service's was given, the command's defaults to proj_local), said with the projects
 * that have docs rather than searched as "No section matches" (decision 804).
 */
async function wrongProject(library: DocsLibrary, project: string): Promise<boolean> {
  const all = await library.store.listDocSources();
  if (all.some((source) => source.projectId === project)) return false;
  const others = [...new Set(all.map((source) => source.projectId))];
  if (!others.length) return false;
  console.error(
    `agent-chat-service: project ${project} has no docs sources; ${others.join(', ')} ${others.length > 1 ? 'have' : 'has'}. Give the service's --project (--project ${others[0]}), or --docs.`,
  );
  return true;
}

/**
 * The project's sources whose last crawl stopped (a site unreachable, its robots.txt failing),
 * each said on stderr with what stopped it: a CI log shows why the docs are missing (decision
 * 606); and the pages their last crawls failed, which `test` names with the page that linked them.
 */
async function lastCrawls(library: DocsLibrary, project: string) {
  const sources = await library.sources(project);
  const failed = sources.flatMap(({ lastRun }) => lastRun?.failures ?? []);
  const stopped: StoppedCrawl[] = sources.flatMap(({ location, lastRun }) =>
    lastRun && !lastRun.complete && lastRun.failures.length
      ? [{ location, failure: lastRun.failures[0] }]
      : [],
  );
  for (const { location, failure } of stopped)
    console.error(
      `agent-chat-service: the crawl of ${location} stopped at ${failureText(failure)}; what it had indexed is kept.`,
    );
  return { stopped, failed };
}

/**
 * The service's store for a command; this run's memory while a running service holds the embedded
 * one, when `--docs` gives it something to crawl. Without, the sources added in the console are
 * out of reach: said, not searched as none (decision 607).
 */
async function commandStore(store: StoreAt, docsGiven: boolean): Promise<Stores> {
  try {
    return await openStorage(store);
  } catch (error) {
    if (!(error instanceof DataDirLockedError)) throw error;
    if (!docsGiven)
      throw new Error(
        `the running service holds the data directory ${store.dataDir}, so its sources cannot be read from here: give them with --docs (crawled into memory for this run), stop the service, or search on the console's Sources page.`,
        { cause: error },
      );
    console.error(
      'agent-chat-service: the running service holds the data directory; the --docs sources are crawled into memory for this run.',
    );
    return memoryStores();
  }
}
