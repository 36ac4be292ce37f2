import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { DemoAgent } from '../index.js';
import type { Agent } from '../agents/types.js';
import { Embedder } from '../docs/embeddings.js';
import { readDocsFolder } from '../docs/folder.js';
import { splitExclusions } from '../docs/exclusions.js';
import { splitSynonyms, synonymProblem } from '../docs/synonyms.js';
import { DocsInputError, DocsLibrary, sourceExclusions, sourceLocation } from '../docs/library.js';
import type { SiteNetwork } from '../docs/site-network.js';
import { systemClock } from '../kernel/clock.js';
import type { Stores } from '../storage/types.js';
import type { jsonLog } from '../node.js';
import { type Flags, env, envFlag, flagProject } from './flags.js';
import { DEMO_AGENT, modelAgent } from './model-flags.js';

/**
 * `--docs` and its flags (`--docs-url`, `--docs-exclude`, `--docs-synonyms`, `--allow-private-docs`):
 * checked before the database opens, then the library and the agent a store is given.
 */

export type Setup = (
  storage: Stores,
  log: typeof jsonLog,
) => Promise<{ library: DocsLibrary; agent: Agent; answeredBy: string }>;

/** What `--docs` and its flags give: the sources, the address a folder's pages are published at, the project, and the library's setup. */
export type DocsFlags = { locations: string[]; folderUrl: string; project: string; setup: Setup };

/**
 * The documentation the flags name, checked now (a location that cannot be crawled fails before
 * the database opens), and how to build the library on a store, with the flag project's sources
 * in it, and the agent (each answer gets its project's docs from the library).
 */
export function docsOf(values: Flags, quiet: boolean): DocsFlags {
  // A folder is kept by its absolute path: the service may start from another directory next time.
  const locations = (
    values.docs ??
    env.AGENT_CHAT_DOCS?.split(',')
      .map((d) => d.trim())
      .filter(Boolean) ??
    []
  ).map((location) => (/^[a-z][a-z0-9+.-]*:\/\//i.test(location) ? location : resolve(location)));
  for (const location of locations)
    try {
      sourceLocation(location, true);
    } catch (error) {
      throw new Error(`--docs: ${error instanceof Error ? error.message : String(error)}`);
    }
  const exclude = docsExclusions(values, locations);
  const synonyms = docsSynonyms(values);
  const folderUrl = values['docs-url'] ?? env.AGENT_CHAT_DOCS_URL ?? '/docs';
  const baseUrl = env.OPENAI_BASE_URL ?? 'https://api.openai.com/v1';
  const embedder = env.OPENAI_EMBEDDING_MODEL
    ? new Embedder({ baseUrl, model: env.OPENAI_EMBEDDING_MODEL, apiKey: env.OPENAI_API_KEY })
    : undefined;
  const project = flagProject(values);
  const agentOf = modelAgent(values);
  const setup: Setup = async (storage, log) => {
    const library = new DocsLibrary({
      store: storage.docs,
      clock: systemClock,
      readFolder: readDocsFolder,
      network: docsNetwork(values, locations),
      embedder,
      folderUrl,
      log,
    });
    try {
      for (const location of locations) {
        const source = await library.addSource(project, location, undefined, exclude ?? []);
        if (exclude && source.exclude.join('\n') !== exclude.join('\n'))
          await library.setExclusions(project, source.id, exclude);
      }
      // Set only when they differ: a new version rebuilds the project's index on every instance.
      if (synonyms && JSON.stringify(await library.synonyms(project)) !== JSON.stringify(synonyms))
        await library.setSynonyms(project, synonyms);
    } catch (error) {
      if (error instanceof DocsInputError) throw new Error(`--docs: ${error.message}`);
      throw error;
    }
    // Until a project's docs hold a section, the demo agent answers from this widget's own articles.
    const agent: Agent =
      agentOf?.agent(log) ??
      new DemoAgent({ wordDelayMs: quiet ? 0 : Number(env.AGENT_CHAT_WORD_DELAY_MS ?? 20) });
    return { library, agent, answeredBy: agentOf?.by ?? DEMO_AGENT };
  };
  return { locations, folderUrl, project, setup };
}

/**
 * Where crawls may connect (decision 650): the sites given with `--docs` are the operator's own,
 * wherever they are; the console's are public unless the operator allows the service's own network.
 */
const docsNetwork = (values: Flags, locations: string[]): SiteNetwork => ({
  allowPrivate: values['allow-private-docs'] ?? envFlag('AGENT_CHAT_ALLOW_PRIVATE_DOCS'),
  operatorSites: locations.filter((location) => URL.canParse(location)),
});

/**
 * The `--docs-exclude` patterns, checked against every `--docs` source; null when none are given.
 * Given, they are these sources' at every start (decision 418); not given, what the console set stays.
 */
function docsExclusions(values: Flags, locations: string[]): string[] | null {
  const given =
    values['docs-exclude'] ??
    (env.AGENT_CHAT_DOCS_EXCLUDE !== undefined ? [env.AGENT_CHAT_DOCS_EXCLUDE] : null);
  if (!given) return null;
  const exclude = splitExclusions(given);
  for (const location of locations)
    try {
      sourceExclusions(exclude, sourceLocation(location, true));
    } catch (error) {
      throw new Error(`--docs-exclude: ${error instanceof Error ? error.message : String(error)}`);
    }
  return exclude;
}

/**
 * The `--docs-synonyms` file's groups, checked; null when none is given. Given, they are the
 * project's at every start, as `--docs-exclude` is (decision 418).
 */
function docsSynonyms(values: Flags): string[][] | null {
  const file = values['docs-synonyms'] ?? env.AGENT_CHAT_DOCS_SYNONYMS;
  if (file === undefined) return null;
  let text: string;
  try {
    text = file ? readFileSync(resolve(file), 'utf8') : '';
  } catch (error) {
    throw new Error(
      `--docs-synonyms: ${file} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'}).`,
    );
  }
  const groups = splitSynonyms(text);
  const problem = synonymProblem(groups);
  if (problem) throw new Error(`--docs-synonyms: ${problem}`);
  return groups;
}
