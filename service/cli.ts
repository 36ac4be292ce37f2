import { readFileSync } from 'node:fs';
import { networkInterfaces } from 'node:os';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { setFlagsFromString } from 'node:v8';
import { DemoAgent, createAgentService } from './index.js';
import type { Agent } from './agents/types.js';
import { logLostAnswers } from './answers/failure-log.js';
import type { ProjectConfig } from './http/directory.js';
import { adminCommand } from './admin-cli.js';
import { eraseOwnerCommand } from './erase-cli.js';
import { exportConversationsCommand } from './export-cli.js';
import { moveToPostgres } from './move-cli.js';
import { keepWidgetCommand } from './keep-widget-cli.js';
import {
  type AnswerTest,
  failureText,
  readAnswerTests,
  searchCommand,
  testCommand,
  type StoppedCrawl,
} from './docs-cli.js';
import { Embedder } from './docs/embeddings.js';
import { readDocsFolder } from './docs/folder.js';
import { splitExclusions } from './docs/exclusions.js';
import { splitSynonyms, synonymProblem } from './docs/synonyms.js';
import { DocsInputError, DocsLibrary, sourceExclusions, sourceLocation } from './docs/library.js';
import type { SiteNetwork } from './docs/site-network.js';
import { systemClock } from './kernel/clock.js';
import { memoryStores } from './storage/memory/index.js';
import type { Stores } from './storage/types.js';
import { normalizeOrigin } from './http/origins.js';
import { DEFAULT_DRAIN_SECONDS, stopOnSignals } from './shutdown.js';
import {
  DataDirLockedError,
  OpenAiAgent,
  jsonLog,
  nodeConsole,
  nodeWidgetRelease,
  openStorage,
  serve,
} from './node.js';

const HELP = `agent-chat-service: the agent-chat service (sessions, chat, history, activity, the console at /console/).

  agent-chat-service [options]            serve
  agent-chat-service admin add USERNAME   add a console admin; the password (12+ characters) is read from stdin;
                                          --role viewer for one who reads and changes nothing
  agent-chat-service admin list           the console admins: role, when each was added and last signed in
  agent-chat-service admin role USERNAME admin|viewer
                                          a new role for a console admin; never the last admin made a viewer
  agent-chat-service admin remove USERNAME
                                          remove a console admin; their console sessions end at once. Never the
                                          last one, unless --allow-no-admins (then add one with admin add)
  agent-chat-service admin password USERNAME
                                          a new password for a console admin, read from stdin as add reads it;
                                          every console session of theirs ends
  agent-chat-service search "QUESTION"    the sections of the project's docs a chat would retrieve, ranked, with scores;
                                          --earlier "QUESTION" searches it as a follow-up of that question
  agent-chat-service test FILE.yaml       answer tests on the project's docs: each question's answer must cite one
                                          of its urls (and contain its phrases); prints a table, exits 1 on a miss
  agent-chat-service move-to-postgres     copy the embedded store (--data) whole into the empty PostgreSQL database
                                          DATABASE_URL names, in one transaction; stop the service first
  agent-chat-service erase-owner --project ID --owner OWNER_ID
                                          erase everything held for one signed-in visitor (their external_owner_id):
                                          conversations, files, reactions, sessions; prints what it removed
                                          (embedded store: stop the service first, or use the console)
  agent-chat-service keep-widget DIR      keep an earlier widget release (DIR: the widget/ folder of its build,
                                          dist/widget in its agent-chat-service package) for pages pinned to it;
                                          the service keeps its own by itself (embedded store: stop it first)
  agent-chat-service export-conversations --project ID [--format csv|jsonl] [--out FILE]
                                          the console's Conversations download: every conversation, newest first,
                                          as CSV (a row a question) or JSON Lines; to stdout or FILE. Filters:
                                          --start/--end YYYY-MM-DD, --integration ID, --text WORDS,
                                          --only downvoted,uncertain,handoff,error,tool_used,stale_sources

  --port N            port, 0 for any free one (PORT; default 8787)
  --host H            interface (HOST; default 127.0.0.1)
  --data DIR          embedded database directory (AGENT_CHAT_DATA; default .data/service)
  --project ID        project id (AGENT_CHAT_PROJECT; default proj_local)
  --integration ID    integration id, repeatable (AGENT_CHAT_INTEGRATION; default int_local)
  --api-key KEY       an API key of the project (AGENT_CHAT_API_KEY)
  --allowed-origin O  an origin whose pages may use the integrations above, repeatable
                      (AGENT_CHAT_ALLOWED_ORIGINS, comma-separated); none: any origin
  --public            make the integrations above public: pages on their allowed origins start
                      chats with no server of their own, after a proof of work (AGENT_CHAT_PUBLIC=1;
                      needs --allowed-origin; daily budgets are set in the console)
                      Without these, projects, integrations and keys are made in the console;
                      with them, they are made to exist at start (idempotent, never removed).
  --public-url URL    public origin for links the service writes (AGENT_CHAT_PUBLIC_URL)
  --docs LOCATION     documentation the project above answers from, repeatable (AGENT_CHAT_DOCS,
                      comma-separated): a website (its root, a folder of it, or its sitemap.xml) or a
                      folder of .md, .html and .pdf files; added to the project's Sources at start (never
                      removed), crawled daily. Other projects' docs are added in the console.
  --docs-url URL      public URL of folder docs (AGENT_CHAT_DOCS_URL; default /docs)
  --docs-exclude P    paths the --docs sources keep out of the index, repeatable or comma-separated
                      (AGENT_CHAT_DOCS_EXCLUDE): a prefix like /blog/, * for anything (*/whatsnew/);
                      a folder's match its files' paths. Given, they replace the sources' at start.
  --docs-synonyms F   a file of the words that mean one thing on your site, one group per line,
                      separated by commas: "auto increment, serial" (AGENT_CHAT_DOCS_SYNONYMS);
                      given, they replace the project's at start, else the console's stay
  --drain-seconds S   on SIGTERM or SIGINT, how long answers in flight may run to their end while
                      new questions go elsewhere (503, /readyz fails); then what is left ends as an
                      error, its text kept; a second signal stops at once (AGENT_CHAT_DRAIN_SECONDS;
                      default ${DEFAULT_DRAIN_SECONDS}: set the orchestrator's grace period a few seconds above it)
  --trust-proxy N     reverse proxies you run in front of the service, whose X-Forwarded-For
                      names the client for the agent limit; "cloudflare" trusts CF-Connecting-IP
                      (AGENT_CHAT_TRUST_PROXY; default 0: the socket's address)
  --allow-private-webhooks  let the console's webhooks reach this machine and its network (private,
                      loopback, link-local addresses), over http:// too: for a receiver of your own,
                      such as a local Mattermost (AGENT_CHAT_ALLOW_PRIVATE_WEBHOOKS=1; default: public
                      https:// addresses only, as a console admin is not necessarily this machine's operator)
  --allow-private-docs  let the console's docs sources be crawled on this machine and its network
                      (private, loopback, link-local addresses): for docs served there
                      (AGENT_CHAT_ALLOW_PRIVATE_DOCS=1; default: public addresses only, except the
                      sites given with --docs, as a console admin is not necessarily this machine's operator)
  DATABASE_URL        PostgreSQL instead of the embedded database
  AGENT_CHAT_RATE_LIMIT            agent calls a minute per owner or client address (default 60; 0 = off)
  AGENT_CHAT_SESSION_MINT_LIMIT    session mints a minute per project: the site's own server budget (default 600; 0 = off)
  AGENT_CHAT_MAX_CONCURRENT_ANSWERS  answers generating at once per owner or client address (default 3; 0 = off)
  AGENT_CHAT_PUBLIC_SESSION_LIMIT  public challenges, and mints, a minute per client address (default 20 each; 0 = off)
  AGENT_CHAT_CHALLENGE_WORK        a public session's proof of work: hashes a browser tries, twice the
                                   average (default 50000, about a second on a phone)
  AGENT_CHAT_EVENT_RETENTION_DAYS  how long activity events are kept (default 400)
  AGENT_CHAT_CONVERSATION_RETENTION_DAYS  days a conversation is kept after its last message, then deleted
                                   with its files and reactions (default 0: kept until deleted)

A model instead of the offline demo agent (any OpenAI-compatible Chat Completions server):
  OPENAI_BASE_URL, OPENAI_MODEL, OPENAI_API_KEY   the server (default https://api.openai.com/v1), model, key
  OPENAI_EMBEDDING_MODEL                          embeddings of the docs through the same server's /v1/embeddings,
                                                  fused with the lexical ranking (optional)
  OPENAI_VISION=1               the model takes images (image_url parts); without it, the visitor is told
                                the model did not see an attached image
  OPENAI_DOCS_SEARCH=0          the model is not offered a search of the docs in its own words (at most 2
                                an answer; default 1: offered when the project has docs)
  --model-tries N               tries per call on 408/429/5xx or no connection, before the first token;
                                Retry-After is honoured (AGENT_CHAT_MODEL_TRIES; default 3, 1 = no retry)
  --model-first-token-timeout S seconds the model may take to start answering, retries included
                                (AGENT_CHAT_MODEL_FIRST_TOKEN_TIMEOUT; default 60)
  --model-stall-timeout S       seconds of silence after the answer started before it ends as an error
                                (AGENT_CHAT_MODEL_STALL_TIMEOUT; default 60)
  --model-history-tokens N      estimated tokens of earlier turns sent with each question; oldest go first
                                (AGENT_CHAT_MODEL_HISTORY_TOKENS; default 8000)
  --model-usage on|off          ask for token usage (stream_options.include_usage); off for a server that
                                refuses the field (AGENT_CHAT_MODEL_USAGE; default on)
  --docs-tokens N               estimated tokens of documentation sections sent with each question, best first
                                (AGENT_CHAT_DOCS_TOKENS; default 6000)
  --model-request-bytes N       bytes one request to the model may take; sections, then earlier turns give way
                                (AGENT_CHAT_MODEL_REQUEST_BYTES; default 65536)

  --model-max-tokens N          the most tokens one model call may write (max_tokens); 0 sends none
                                (AGENT_CHAT_MODEL_MAX_TOKENS; default 8192)`;

const OPTIONS = {
  port: { type: 'string' },
  host: { type: 'string' },
  data: { type: 'string' },
  project: { type: 'string' },
  integration: { type: 'string', multiple: true },
  'api-key': { type: 'string' },
  'allowed-origin': { type: 'string', multiple: true },
  public: { type: 'boolean' },
  'public-url': { type: 'string' },
  help: { type: 'boolean' },
  'trust-proxy': { type: 'string' },
  'model-tries': { type: 'string' },
  'model-first-token-timeout': { type: 'string' },
  'model-stall-timeout': { type: 'string' },
  'model-history-tokens': { type: 'string' },
  'model-usage': { type: 'string' },
  'docs-tokens': { type: 'string' },
  'model-request-bytes': { type: 'string' },
  docs: { type: 'string', multiple: true },
  'docs-url': { type: 'string' },
  'docs-exclude': { type: 'string', multiple: true },
  'docs-synonyms': { type: 'string' },
  'model-max-tokens': { type: 'string' },
  earlier: { type: 'string' },
  owner: { type: 'string' },
  format: { type: 'string' },
  start: { type: 'string' },
  end: { type: 'string' },
  text: { type: 'string' },
  only: { type: 'string', multiple: true },
  out: { type: 'string' },
  'drain-seconds': { type: 'string' },
  'allow-private-webhooks': { type: 'boolean' },
  'allow-private-docs': { type: 'boolean' },
  'allow-no-admins': { type: 'boolean' },
  role: { type: 'string' },
} as const;

const flags = () => parseArgs({ allowPositionals: true, options: OPTIONS });
type Flags = ReturnType<typeof flags>['values'];
const env = process.env;
/** A yes-or-no setting from the environment: on when it is `1` or `true`. */
const envFlag = (name: string) => ['1', 'true'].includes(env[name] ?? '');

/** Where the store is: DATABASE_URL's PostgreSQL, else the embedded one in the data directory. */
const storeAt = (values: Flags) => ({
  databaseUrl: env.DATABASE_URL || undefined,
  dataDir: values.data ?? env.AGENT_CHAT_DATA ?? '.data/service',
});
type StoreAt = ReturnType<typeof storeAt>;

/**
 * The console's cookie is Secure only when the service can tell the browser is on https: a TLS
 * proxy that sends no X-Forwarded-Proto leaves it plain unless --public-url says https.
 */
const INSECURE_COOKIE =
  'console: its sign-in cookie is marked Secure only for requests that arrive over https or with X-Forwarded-Proto: https. Behind a TLS proxy that sends neither, set --public-url https://… (AGENT_CHAT_PUBLIC_URL).';

async function main() {
  const { values, positionals } = flags();
  if (values.help) {
    console.log(HELP);
    return;
  }
  const store = storeAt(values);
  const args = positionals.slice(1);
  const commands: Record<string, () => Promise<number>> = {
    admin: () => adminCommand(args, { allowNoAdmins: values['allow-no-admins'], role: values.role }, store),
    'erase-owner': () => eraseOwnerCommand(args, values, store),
    'export-conversations': () => exportConversationsCommand(args, values, store),
    'move-to-postgres': () => moveToPostgres(args, store),
    'keep-widget': () => keepWidgetCommand(args, store),
  };
  if (positionals.length && Object.hasOwn(commands, positionals[0])) {
    process.exitCode = await commands[positionals[0]]();
    return;
  }
  const command = positionals[0];
  if (positionals.length && !(command === 'search' || command === 'test')) {
    console.error(`agent-chat-service: unknown command ${positionals.join(' ')}.\n`);
    console.error(HELP);
    process.exit(2);
  }
  const port = Number(values.port ?? env.PORT ?? 8787);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    console.error(`agent-chat-service: --port must be 0 to 65535, not ${values.port ?? env.PORT}.`);
    process.exit(2);
  }
  const docs = docsOf(values, command !== undefined);
  if (command === 'search' || command === 'test') {
    process.exitCode = await docsCommand(command, positionals.slice(1), docs, values);
    return;
  }
  await start(values, port, docs.setup);
}

/** The service on `port`, from the flags, until SIGTERM or SIGINT. */
async function start(values: Flags, port: number, setup: Setup) {
  const { projects, named } = projectsOf(values);
  const settings = {
    projects,
    publicUrl: publicUrlOf(values['public-url'] ?? env.AGENT_CHAT_PUBLIC_URL),
    rateLimit: perMinute(env.AGENT_CHAT_RATE_LIMIT),
    sessionMintLimit: perMinute(env.AGENT_CHAT_SESSION_MINT_LIMIT),
    publicSessionLimit: perMinute(env.AGENT_CHAT_PUBLIC_SESSION_LIMIT),
    challengeWork: whole('AGENT_CHAT_CHALLENGE_WORK', env.AGENT_CHAT_CHALLENGE_WORK, 1_000, 100_000_000),
    maxConcurrentAnswers: wholeNumber(
      env.AGENT_CHAT_MAX_CONCURRENT_ANSWERS,
      'AGENT_CHAT_MAX_CONCURRENT_ANSWERS',
    ),
    eventRetentionMs: env.AGENT_CHAT_EVENT_RETENTION_DAYS
      ? Number(env.AGENT_CHAT_EVENT_RETENTION_DAYS) * 86_400_000
      : undefined,
    // Unset or 0: kept until deleted.
    conversationRetentionMs:
      (wholeNumber(env.AGENT_CHAT_CONVERSATION_RETENTION_DAYS, 'AGENT_CHAT_CONVERSATION_RETENTION_DAYS') ||
        0) * 86_400_000,
    trustProxy: proxyHops(values['trust-proxy'] ?? env.AGENT_CHAT_TRUST_PROXY),
    allowPrivateWebhooks: values['allow-private-webhooks'] ?? envFlag('AGENT_CHAT_ALLOW_PRIVATE_WEBHOOKS'),
    log: jsonLog,
  };
  const drainMs = drainSeconds(values['drain-seconds'] ?? env.AGENT_CHAT_DRAIN_SECONDS) * 1000;
  // Every setting is checked before the store opens: a typo fails at once, with nothing written.
  const { databaseUrl, dataDir } = storeAt(values);
  const storage = await openStore(databaseUrl, dataDir);
  const { library, agent, answeredBy } = await setup(storage, jsonLog);
  const service = createAgentService({
    ...settings,
    storage,
    agent,
    docs: library,
    console: await nodeConsole(),
    widget: await nodeWidgetRelease(),
  });
  const host = values.host ?? env.HOST ?? '127.0.0.1';
  const running = await serve(service, { port, host });
  // Before any line says the service is up: whoever reads it (an orchestrator, a test) may stop
  // it at once, and a signal before the handlers would kill the process without its drain.
  const stoppable = { ...running, inFlight: () => service.answersInFlight };
  stopOnSignals(stoppable, drainMs, {
    on: (signal, listener) => process.on(signal, listener),
    say: (line) => console.log(`agent-chat-service ${line}`),
    exit: (code) => process.exit(code),
  });
  // Which agent answers, said where an operator looks first: a model set in the wrong shell is no surprise.
  console.log(`agent-chat-service answers with ${answeredBy}`);
  console.log(
    `agent-chat-service listening on ${running.url} (${named ?? 'projects from the console'}, ${databaseUrl ? 'PostgreSQL' : `data in ${dataDir}`}; drains for up to ${drainMs / 1000} s on SIGTERM)`,
  );
  const everywhere = everyInterface(host, running.url);
  if (everywhere) console.log(`agent-chat-service ${everywhere}`);
  const embedded = databaseUrl ? null : dataDir;
  announceConsole(running.url, settings.publicUrl, await signInState(storage), embedded);
}

/**
 * A wildcard host (0.0.0.0, ::) is no address to open: the lines above give the loopback one, for
 * a person on this machine, and this line says it listens on every interface, with the machine's
 * own addresses for the others (decision 568). Link-local IPv6 ones are left out (they need a zone).
 */
function everyInterface(host: string, url: string): string | undefined {
  if (host !== '0.0.0.0' && host !== '::') return undefined;
  const { port } = new URL(url);
  const addresses = Object.values(networkInterfaces())
    .flat()
    .filter((a) => a && !a.internal && (host === '::' || a.family === 'IPv4') && !a.scopeid)
    .map((a) => `http://${a!.family === 'IPv6' ? `[${a!.address}]` : a!.address}:${port}`);
  return `listens on every interface (${host})${addresses.length ? `: also ${addresses.join(', ')}` : ''}`;
}

/**
 * `--public-url`, checked now: the routes read it as an address at every request, and a bare host
 * (`chat.example.com`) made each of them fail (decision 574).
 */
function publicUrlOf(given: string | undefined): string | undefined {
  if (!given || httpUrl(given)) return given;
  throw new Error(
    `--public-url must be the address visitors open, as https://chat.example.com or https://example.com/chat/, not ${given}.`,
  );
}

/** Who can sign in to the console: nobody, only viewers (who change nothing; decision 718), or an admin. */
async function signInState(storage: Stores): Promise<'none' | 'viewers' | 'admin'> {
  if (!(await storage.accounts.hasAdmins())) return 'none';
  const accounts = await storage.accounts.listAdmins();
  return accounts.some((a) => a.role === 'admin') ? 'admin' : 'viewers';
}

/**
 * Where the console is (behind a proxy, at the public URL, and on this machine; decision 574),
 * how to add its first admin while there is none or make a viewer one while only viewers are
 * left (decision 749), and (one write, so it arrives with that line) when its cookie cannot be Secure.
 */
function announceConsole(
  url: string,
  publicUrl: string | undefined,
  signIn: 'none' | 'viewers' | 'admin',
  dataDir: string | null,
) {
  // The embedded store takes one process: `admin add` or `admin role` beside this one would be refused.
  const command =
    signIn === 'none' ? 'agent-chat-service admin add NAME' : 'agent-chat-service admin role NAME admin';
  const stdin = signIn === 'none' ? ', the password on stdin' : '';
  const state = signIn === 'none' ? 'no admin yet' : 'no admin, only viewers';
  const first =
    signIn === 'admin'
      ? ''
      : dataDir
        ? ` (${state}: stop this service, then run ${command} --data ${dataDir}${stdin}, and start it again)`
        : ` (${state}: run ${command} beside it, with DATABASE_URL${stdin})`;
  const caveat = publicUrl?.startsWith('https:') ? '' : `\n${INSECURE_COOKIE}`;
  const where = publicUrl
    ? `${publicUrl.replace(/\/*$/, '')}/console/ (on this machine: ${url}/console/)`
    : `${url}/console/`;
  console.log(`console: ${where}${first}${caveat}`);
}

/** The project the flags name (`--project`, else proj_local): the one `--docs` feeds and `search` and `test` ask. */
const flagProject = (values: Flags) => values.project ?? env.AGENT_CHAT_PROJECT ?? 'proj_local';

type Setup = (
  storage: Stores,
  log: typeof jsonLog,
) => Promise<{ library: DocsLibrary; agent: Agent; answeredBy: string }>;

/** What `--docs` and its flags give: the sources, the address a folder's pages are published at, the project, and the library's setup. */
type DocsFlags = { locations: string[]; folderUrl: string; project: string; setup: Setup };

/**
 * The documentation the flags name, checked now (a location that cannot be crawled fails before
 * the database opens), and how to build the library on a store, with the flag project's sources
 * in it, and the agent (each answer gets its project's docs from the library).
 */
function docsOf(values: Flags, quiet: boolean): DocsFlags {
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

/** The model when OPENAI_BASE_URL is set without OPENAI_MODEL. */
const DEFAULT_MODEL = 'gpt-4o-mini';

/** OPENAI_DOCS_SEARCH: 1 (the default) or 0, for a model that handles tools badly. */
function docsSearch(value: string | undefined): boolean {
  if (value === undefined || value === '' || value === '1') return true;
  if (value === '0') return false;
  throw new Error(`OPENAI_DOCS_SEARCH must be 1 or 0, not ${value}.`);
}

/** What the start-up line says answers without a model. */
const DEMO_AGENT =
  'the offline demo agent, which quotes the docs (set OPENAI_BASE_URL and OPENAI_MODEL for a model)';

/** `value` as an http(s) address, or null (URL.canParse: Node 20 has no URL.parse). */
function httpUrl(value: string): URL | null {
  const url = URL.canParse(value) ? new URL(value) : null;
  return url?.protocol === 'http:' || url?.protocol === 'https:' ? url : null;
}

/** The model server's address, checked at start: a typo would otherwise fail every answer. */
function modelBaseUrl(): URL {
  const value = env.OPENAI_BASE_URL || 'https://api.openai.com/v1';
  const url = httpUrl(value);
  if (!url)
    throw new Error(`OPENAI_BASE_URL must be an http(s) URL, like https://api.openai.com/v1, not ${value}.`);
  return url;
}

/**
 * A model agent when one is configured, and how the start-up line names it (the model and its
 * server, never credentials); null for the offline demo agent.
 */
function modelAgent(values: Flags): { agent: (log: typeof jsonLog) => Agent; by: string } | null {
  if (!env.OPENAI_BASE_URL && !env.OPENAI_MODEL) return null;
  const server = modelBaseUrl();
  const usage = values['model-usage'] ?? env.AGENT_CHAT_MODEL_USAGE ?? 'on';
  if (usage !== 'on' && usage !== 'off') throw new Error(`--model-usage must be on or off, not ${usage}.`);
  const options = {
    baseUrl: server.href,
    model: env.OPENAI_MODEL || DEFAULT_MODEL,
    apiKey: env.OPENAI_API_KEY,
    vision: env.OPENAI_VISION === '1',
    docsSearch: docsSearch(env.OPENAI_DOCS_SEARCH),
    maxTries: whole('--model-tries', values['model-tries'] ?? env.AGENT_CHAT_MODEL_TRIES, 1, 10),
    firstTokenTimeoutMs: seconds(
      '--model-first-token-timeout',
      values['model-first-token-timeout'] ?? env.AGENT_CHAT_MODEL_FIRST_TOKEN_TIMEOUT,
    ),
    stallTimeoutMs: seconds(
      '--model-stall-timeout',
      values['model-stall-timeout'] ?? env.AGENT_CHAT_MODEL_STALL_TIMEOUT,
    ),
    historyTokens: whole(
      '--model-history-tokens',
      values['model-history-tokens'] ?? env.AGENT_CHAT_MODEL_HISTORY_TOKENS,
      0,
      10_000_000,
    ),
    usage: usage === 'on',
    docsTokens: whole('--docs-tokens', values['docs-tokens'] ?? env.AGENT_CHAT_DOCS_TOKENS, 0, 1_000_000),
    maxRequestBytes: whole(
      '--model-request-bytes',
      values['model-request-bytes'] ?? env.AGENT_CHAT_MODEL_REQUEST_BYTES,
      4_096,
      100 * 1024 * 1024,
    ),
    maxTokens: whole(
      '--model-max-tokens',
      values['model-max-tokens'] ?? env.AGENT_CHAT_MODEL_MAX_TOKENS,
      0,
      10_000_000,
    ),
  };
  return {
    agent: (log) => new OpenAiAgent({ ...options, log }),
    by: `the model ${options.model} at ${server.origin}${server.pathname}`,
  };
}

/**
 * `search` and `test`: the service's database (or, while a running service holds the embedded
 * one, this run's memory with the `--docs` sources crawled into it), the same library and agent
 * as a chat.
 */
async function docsCommand(
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
  // Read the tests before anything is crawled: a typo fails at once. Relative URLs are read against
  // the first site, else the address a folder's pages are published at (decision 461).
  const sites = docs.locations.filter((location) => /^https?:\/\//.test(location));
  const published = /^https?:\/\//.test(docs.folderUrl) ? docs.folderUrl.replace(/\/?$/, '/') : undefined;
  const base = sites[0] ?? (docs.locations.length ? published : undefined);
  let tests: AnswerTest[] = [];
  try {
    if (command === 'test') tests = await readAnswerTests(args[0], base);
  } catch (error) {
    // 2, not 1: a CI step tells a file to fix from an answer that missed (decision 297).
    console.error(`agent-chat-service: ${error instanceof Error ? error.message : String(error)}`);
    return 2;
  }
  const storage = await commandStore(storeAt(values), docs.locations.length > 0);
  // Logs go to stderr: stdout is the table.
  const { library, agent } = await docs.setup(storage, (entry) => console.error(JSON.stringify(entry)));
  try {
    // Sources never crawled (or due) are crawled first, so a first run has something to read.
    await library.tick();
    const projectDocs = library.project(docs.project);
    const { stopped, failed } = await lastCrawls(library, docs.project);
    return command === 'search'
      ? await searchCommand(projectDocs, args[0], print, { earlier: values.earlier })
      : await testCommand(agent, projectDocs, tests, print, sites, fetch, stopped, failed);
  } finally {
    await library.close();
    await storage.close();
  }
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

/**
 * The project the flags name, made to exist at start; none when no flag names one (projects
 * then come from the console). `named` says which, for the start-up line.
 */
function projectsOf(values: Flags): { projects: ProjectConfig[]; named: string | null } {
  const apiKey = values['api-key'] ?? env.AGENT_CHAT_API_KEY;
  const origins = values['allowed-origin'] ?? env.AGENT_CHAT_ALLOWED_ORIGINS?.split(',').filter(Boolean);
  const allowedOrigins = origins?.map((origin) => {
    const normal = normalizeOrigin(origin);
    if (!normal)
      throw new Error(`--allowed-origin ${origin} is not an origin (scheme://host[:port], no path).`);
    return normal;
  });
  const isPublic = values.public ?? envFlag('AGENT_CHAT_PUBLIC');
  if (isPublic && !allowedOrigins?.length)
    throw new Error(
      '--public needs --allowed-origin: only pages on those origins may start chats without a site server.',
    );
  const project = flagProject(values);
  const integrations = values.integration ?? env.AGENT_CHAT_INTEGRATION?.split(',') ?? ['int_local'];
  // Docs given on the command line are the flag project's: it is made to exist for them.
  const seeded = !!(
    apiKey ||
    values.project ||
    env.AGENT_CHAT_PROJECT ||
    values.integration ||
    env.AGENT_CHAT_INTEGRATION ||
    allowedOrigins ||
    values.docs?.length ||
    env.AGENT_CHAT_DOCS
  );
  if (!seeded) return { projects: [], named: null };
  return {
    projects: [
      {
        id: project,
        apiKey,
        integrationIds: integrations,
        allowedOrigins,
        ...(isPublic && { public: true }),
      },
    ],
    named: `project ${project}`,
  };
}

/** The store; a data directory another process owns is said plainly, with nothing written. */
async function openStore(databaseUrl: string | undefined, dataDir: string) {
  // The embedded database is PostgreSQL compiled to WebAssembly. V8 compiles it twice (a quick
  // baseline, then optimized code for what runs hot) and keeps both; compiling it optimized
  // once keeps a first start near 170 MB of RSS instead of 190-260 MB, for a second more of
  // start-up. Only the program does this: it changes the whole process.
  if (!databaseUrl) setFlagsFromString('--no-liftoff');
  let storage;
  try {
    storage = await openStorage({
      databaseUrl,
      dataDir,
      ended: (answers) => logLostAnswers(jsonLog, answers),
      newerSchema: (database, build) =>
        console.error(
          `agent-chat-service: the database's schema is at version ${database}, migrated by a newer release; this build's is ${build}. That release keeps it fit for this one, which runs on it (decision 732); upgrade this instance too.`,
        ),
    });
  } catch (error) {
    if (error instanceof DataDirLockedError) {
      console.error(`agent-chat-service: ${error.message}`);
      process.exit(1);
    }
    throw error;
  }
  // The embedded store stops what a crash left at its open; on a shared PostgreSQL other
  // instances' answers may be live, and leases end those of a dead one.
  return storage;
}

/** `--trust-proxy`: a hop count or "cloudflare"; `undefined` keeps the default. */
function proxyHops(value: string | undefined): number | 'cloudflare' | undefined {
  if (value === undefined || value === '' || value === 'cloudflare') return value || undefined;
  if (!/^\d{1,2}$/.test(value) || Number(value) > 16)
    throw new Error(`--trust-proxy must be a hop count from 0 to 16 or "cloudflare", not ${value}.`);
  return Number(value);
}

/** A whole number in [min, max]; `undefined` keeps the default. */
function whole(name: string, value: string | undefined, min: number, max: number): number | undefined {
  if (value === undefined || value === '') return undefined;
  const number = Number(value);
  if (!Number.isInteger(number) || number < min || number > max)
    throw new Error(`${name} must be a whole number from ${min} to ${max}, not ${value}.`);
  return number;
}

/** Seconds (fractions allowed) as milliseconds; `undefined` keeps the default. */
function seconds(name: string, value: string | undefined): number | undefined {
  if (value === undefined || value === '') return undefined;
  const number = Number(value);
  if (!Number.isFinite(number) || number <= 0)
    throw new Error(`${name} must be a number of seconds above 0, not ${value}.`);
  return Math.round(number * 1000);
}

/** `--drain-seconds`: 0 (cut at once, as before) to an hour, fractions allowed. */
function drainSeconds(value: string | undefined): number {
  if (value === undefined || value === '') return DEFAULT_DRAIN_SECONDS;
  const number = Number(value);
  if (!Number.isFinite(number) || number < 0 || number > 3600)
    throw new Error(`--drain-seconds must be a number of seconds from 0 to 3600, not ${value}.`);
  return number;
}

/** `undefined` keeps the default, `0` turns the cap off. */
function wholeNumber(value: string | undefined, name: string) {
  if (value === undefined || value === '') return undefined;
  const count = Number(value);
  if (!Number.isInteger(count) || count < 0) throw new Error(`${name} must be a whole number, not ${value}`);
  return count === 0 ? (false as const) : count;
}

/** `undefined` keeps the default, `0` turns the limit off. */
function perMinute(value: string | undefined) {
  if (value === undefined || value === '') return undefined;
  const requests = Number(value);
  if (!Number.isInteger(requests) || requests < 0)
    throw new Error(`a rate limit must be a whole number, not ${value}`);
  return requests === 0 ? (false as const) : { requests, windowMs: 60_000 };
}

main().catch((error) => {
  console.error(`agent-chat-service: ${error instanceof Error ? error.message : error}`);
  process.exit(1);
});
