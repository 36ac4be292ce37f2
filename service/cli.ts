import { parseArgs } from 'node:util';
import { DemoAgent, createReferenceService } from './index.js';
import type { Agent } from './agents/types.js';
import { OpenAiAgent, jsonLog, loadMarkdownDocs, openStorage, serve } from './node.js';

const HELP = `agent-chat-service: the agent-chat service (sessions, chat, history, activity).

  --port N            port, 0 for any free one (PORT; default 8787)
  --host H            interface (HOST; default 127.0.0.1)
  --data DIR          embedded database directory (AGENT_CHAT_DATA; default .data/service)
  --project ID        project id (AGENT_CHAT_PROJECT; default proj_local)
  --integration ID    integration id, repeatable (AGENT_CHAT_INTEGRATION; default int_local)
  --api-key KEY       the project's API key (AGENT_CHAT_API_KEY; required)
  --public-url URL    public origin for links the service writes (AGENT_CHAT_PUBLIC_URL)
  DATABASE_URL        PostgreSQL instead of the embedded database
  AGENT_CHAT_RATE_LIMIT            agent calls a minute per owner or client address (default 60; 0 = off)
  AGENT_CHAT_SESSION_MINT_LIMIT    session mints a minute per project (default 600; 0 = off)
  AGENT_CHAT_EVENT_RETENTION_DAYS  how long activity events are kept (default 400)
  OPENAI_BASE_URL, OPENAI_MODEL, OPENAI_API_KEY, AGENT_CHAT_DOCS (a folder of .md), AGENT_CHAT_DOCS_URL
                      answer with a model over those docs instead of the offline demo agent`;

async function main() {
  const { values } = parseArgs({
    options: {
      port: { type: 'string' }, host: { type: 'string' }, data: { type: 'string' }, project: { type: 'string' },
      integration: { type: 'string', multiple: true }, 'api-key': { type: 'string' }, 'public-url': { type: 'string' }, help: { type: 'boolean' },
    },
  });
  if (values.help) return void console.log(HELP);
  const env = process.env;
  const apiKey = values['api-key'] ?? env.AGENT_CHAT_API_KEY;
  if (!apiKey) {
    console.error('agent-chat-service: an API key is required (--api-key or AGENT_CHAT_API_KEY).\n');
    console.error(HELP);
    process.exit(2);
  }
  const port = Number(values.port ?? env.PORT ?? 8787);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    console.error(`agent-chat-service: --port must be 0 to 65535, not ${values.port ?? env.PORT}.`);
    process.exit(2);
  }
  const databaseUrl = env.DATABASE_URL || undefined;
  const dataDir = values.data ?? env.AGENT_CHAT_DATA ?? '.data/service';
  const storage = await openStorage({ databaseUrl, dataDir });
  // The embedded store belongs to this process alone: whatever it left streaming was cut off.
  // A shared PostgreSQL may hold other instances' live answers; maintenance stops those later.
  if (!databaseUrl) await storage.stopStale(Number.MAX_SAFE_INTEGER);

  let agent: Agent = new DemoAgent({ wordDelayMs: Number(env.AGENT_CHAT_WORD_DELAY_MS ?? 20) });
  if (env.OPENAI_BASE_URL || env.OPENAI_MODEL) {
    if (!env.AGENT_CHAT_DOCS) throw new Error('AGENT_CHAT_DOCS (a folder of Markdown files) is required with OPENAI_BASE_URL.');
    const docs = await loadMarkdownDocs(env.AGENT_CHAT_DOCS, env.AGENT_CHAT_DOCS_URL ?? '/docs');
    agent = new OpenAiAgent({ baseUrl: env.OPENAI_BASE_URL ?? 'https://api.openai.com/v1', model: env.OPENAI_MODEL ?? 'gpt-4o-mini', apiKey: env.OPENAI_API_KEY, docs });
  }
  const project = values.project ?? env.AGENT_CHAT_PROJECT ?? 'proj_local';
  const integrations = values.integration ?? env.AGENT_CHAT_INTEGRATION?.split(',') ?? ['int_local'];
  const service = createReferenceService({
    projects: [{ id: project, apiKey, integrationIds: integrations }],
    storage,
    agent,
    publicUrl: values['public-url'] ?? env.AGENT_CHAT_PUBLIC_URL,
    rateLimit: perMinute(env.AGENT_CHAT_RATE_LIMIT),
    sessionMintLimit: perMinute(env.AGENT_CHAT_SESSION_MINT_LIMIT),
    eventRetentionMs: env.AGENT_CHAT_EVENT_RETENTION_DAYS ? Number(env.AGENT_CHAT_EVENT_RETENTION_DAYS) * 86_400_000 : undefined,
    log: jsonLog,
  });
  const running = await serve(service, { port, host: values.host ?? env.HOST ?? '127.0.0.1' });
  console.log(`agent-chat-service listening on ${running.url} (project ${project}, ${databaseUrl ? 'PostgreSQL' : `data in ${dataDir}`})`);
  const stop = (signal: string) => {
    jsonLog({ level: 'info', msg: 'stopping', signal });
    running.close().then(() => process.exit(0), () => process.exit(1));
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
}

/** `undefined` keeps the default, `0` turns the limit off. */
function perMinute(value: string | undefined) {
  if (value === undefined || value === '') return undefined;
  const requests = Number(value);
  if (!Number.isInteger(requests) || requests < 0) throw new Error(`a rate limit must be a whole number, not ${value}`);
  return requests === 0 ? (false as const) : { requests, windowMs: 60_000 };
}

main().catch((error) => {
  console.error(`agent-chat-service: ${error instanceof Error ? error.message : error}`);
  process.exit(1);
});
