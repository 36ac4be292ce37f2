import { setFlagsFromString } from 'node:v8';
import { createAgentService } from '../index.js';
import { logLostAnswers } from '../answers/failure-log.js';
import type { ProjectConfig } from '../http/directory.js';
import { normalizeOrigin } from '../http/origins.js';
import { stopOnSignals } from '../shutdown.js';
import { DataDirLockedError, jsonLog, nodeConsole, nodeWidgetRelease, openStorage, serve } from '../node.js';
import type { Setup } from './docs-flags.js';
import {
  type Flags,
  drainSeconds,
  env,
  envFlag,
  flagProject,
  httpUrl,
  perMinute,
  proxyHops,
  storeAt,
  whole,
  wholeNumber,
} from './flags.js';
import { announceConsole, everyInterface, signInState } from './start-up-lines.js';

/** Serving: the service's settings from the flags, checked before its store opens, then the service until a signal stops it. */

/** The service on `port`, from the flags, until SIGTERM or SIGINT. */
export async function start(values: Flags, port: number, setup: Setup) {
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
 * `--public-url`, checked now: the routes read it as an address at every request, and a bare host
 * (`chat.example.com`) made each of them fail (decision 574).
 */
function publicUrlOf(given: string | undefined): string | undefined {
  if (!given || httpUrl(given)) return given;
  throw new Error(
    `--public-url must be the address visitors open, as https://chat.example.com or https://example.com/chat/, not ${given}.`,
  );
}

/**
 * The project the flags name, made to exist at start; none when no flag names one (projects
 * then come from the console). `named` says which, for the start-up line.
 */
export function projectsOf(values: Flags): { projects: ProjectConfig[]; named: string | null } {
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
