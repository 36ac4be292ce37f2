import { DEFAULT_DRAIN_SECONDS } from '../shutdown.js';

/** `--help`, and what an unknown command is answered with: every command, flag and environment variable. */
export const HELP = `agent-chat-service: the agent-chat service (sessions, chat, history, activity, the console at /console/).

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
