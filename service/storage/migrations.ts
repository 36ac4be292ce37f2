/**
 * The oldest schema version whose builds still run right on the schema these migrations make.
 * Since the 4th (sessions' token column renamed to its hash) every migration only adds: a
 * table, an index, a column that is nullable or has a default, a view rebuilt with more
 * columns. So a build a release behind keeps serving on a schema a newer one migrated, as a
 * rolling upgrade of a fleet needs, and a build that finds its schema newer than it knows
 * starts only if its own version is at least this (decision 732). A migration that breaks the
 * builds before it (a column dropped, renamed, retyped or made NOT NULL without a default)
 * raises this to its own number; `test/unit/service/storage/schema-versions.test.ts` fails
 * on one that does not.
 */
export const OLDEST_COMPATIBLE_SCHEMA = 4;

/**
 * Numbered, append-only migrations. Times are epoch milliseconds in bigint columns, so the
 * same rows mean the same thing under any session time zone.
 */
export const MIGRATIONS: string[] = [
  `CREATE TABLE sessions (
     token text PRIMARY KEY, project_id text NOT NULL, owner text,
     created_at bigint NOT NULL, expires_at bigint NOT NULL);
   CREATE INDEX sessions_expires ON sessions (expires_at);
   CREATE TABLE threads (
     id text PRIMARY KEY, project_id text NOT NULL, integration_id text NOT NULL, owner text,
     title text NOT NULL, created_at bigint NOT NULL, updated_at bigint NOT NULL);
   CREATE INDEX threads_by_owner ON threads (project_id, owner, updated_at DESC, id DESC);
   CREATE TABLE messages (
     id text PRIMARY KEY, thread_id text NOT NULL REFERENCES threads (id) ON DELETE CASCADE,
     seq bigserial NOT NULL, role text NOT NULL, content text NOT NULL, sources jsonb NOT NULL,
     created_at bigint NOT NULL, updated_at bigint NOT NULL, status text NOT NULL,
     tool_calls jsonb NOT NULL, activity jsonb NOT NULL, uncertain boolean NOT NULL);
   CREATE INDEX messages_by_thread ON messages (thread_id, seq);
   CREATE INDEX messages_streaming ON messages (updated_at) WHERE status = 'streaming';
   CREATE TABLE feedback (
     message_id text NOT NULL, voter text NOT NULL, project_id text NOT NULL, session_token text NOT NULL,
     owner text, integration_id text NOT NULL, reaction text NOT NULL, comment jsonb, at bigint NOT NULL,
     PRIMARY KEY (message_id, voter));
   CREATE TABLE events (
     id bigserial PRIMARY KEY, kind text NOT NULL, project_id text NOT NULL, at bigint NOT NULL,
     session_token text NOT NULL, owner text, integration_id text);
   CREATE INDEX events_by_time ON events (at);
   CREATE MATERIALIZED VIEW activity_rollup AS
     SELECT project_id, day, session_token, max(owner) AS owner, integration_id,
       sum(sessions)::int AS sessions, sum(threads)::int AS threads, sum(messages)::int AS messages,
       sum(upvotes)::int AS upvotes, sum(downvotes)::int AS downvotes
     FROM (
       SELECT project_id, at / 86400000 AS day, session_token, owner, coalesce(integration_id, '') AS integration_id,
         (kind = 'session')::int AS sessions, (kind = 'thread')::int AS threads, (kind = 'message')::int AS messages,
         0 AS upvotes, 0 AS downvotes
       FROM events
       UNION ALL
       SELECT project_id, at / 86400000, session_token, owner, integration_id, 0, 0, 0,
         (reaction = 'upvote')::int, (reaction = 'downvote')::int
       FROM feedback
     ) AS facts
     GROUP BY project_id, day, session_token, integration_id;
   CREATE UNIQUE INDEX activity_rollup_key ON activity_rollup (project_id, day, session_token, integration_id);`,
  // Model token usage: per answer on the message, per run as a `usage` event, per day in the rollup.
  `ALTER TABLE messages ADD COLUMN prompt_tokens bigint, ADD COLUMN completion_tokens bigint;
   ALTER TABLE events ADD COLUMN prompt_tokens bigint NOT NULL DEFAULT 0, ADD COLUMN completion_tokens bigint NOT NULL DEFAULT 0;
   DROP MATERIALIZED VIEW activity_rollup;
   CREATE MATERIALIZED VIEW activity_rollup AS
     SELECT project_id, day, session_token, max(owner) AS owner, integration_id,
       sum(sessions)::int AS sessions, sum(threads)::int AS threads, sum(messages)::int AS messages,
       sum(upvotes)::int AS upvotes, sum(downvotes)::int AS downvotes,
       sum(prompt_tokens)::bigint AS prompt_tokens, sum(completion_tokens)::bigint AS completion_tokens
     FROM (
       SELECT project_id, at / 86400000 AS day, session_token, owner, coalesce(integration_id, '') AS integration_id,
         (kind = 'session')::int AS sessions, (kind = 'thread')::int AS threads, (kind = 'message')::int AS messages,
         0 AS upvotes, 0 AS downvotes, prompt_tokens, completion_tokens
       FROM events
       UNION ALL
       SELECT project_id, at / 86400000, session_token, owner, integration_id, 0, 0, 0,
         (reaction = 'upvote')::int, (reaction = 'downvote')::int, 0, 0
       FROM feedback
     ) AS facts
     GROUP BY project_id, day, session_token, integration_id;
   CREATE UNIQUE INDEX activity_rollup_key ON activity_rollup (project_id, day, session_token, integration_id);`,
  // The console: the directory the agent API reads (projects, integrations with their allowed
  // origins, API keys as hashes), admin accounts and their sessions, sign-in failures, the audit
  // log; and what the console reads across owners (threads by project, full-text search).
  `CREATE TABLE projects (id text PRIMARY KEY, name text NOT NULL, owner_secret text NOT NULL, created_at bigint NOT NULL);
   CREATE TABLE integrations (
     project_id text NOT NULL REFERENCES projects (id) ON DELETE CASCADE, id text NOT NULL, name text NOT NULL,
     allowed_origins jsonb NOT NULL, created_at bigint NOT NULL, PRIMARY KEY (project_id, id));
   CREATE TABLE api_keys (
     id text PRIMARY KEY, project_id text NOT NULL REFERENCES projects (id) ON DELETE CASCADE, name text NOT NULL,
     prefix text NOT NULL, hash text NOT NULL, created_at bigint NOT NULL, last_used_at bigint, expires_at bigint, revoked_at bigint,
     UNIQUE (project_id, hash));
   CREATE TABLE admins (username text PRIMARY KEY, password_hash text NOT NULL, created_at bigint NOT NULL);
   CREATE TABLE console_sessions (
     token_hash text PRIMARY KEY, username text NOT NULL REFERENCES admins (username) ON DELETE CASCADE,
     csrf text NOT NULL, created_at bigint NOT NULL, expires_at bigint NOT NULL);
   CREATE INDEX console_sessions_expires ON console_sessions (expires_at);
   CREATE TABLE sign_in_failures (key text NOT NULL, at bigint NOT NULL);
   CREATE INDEX sign_in_failures_by_key ON sign_in_failures (key, at);
   CREATE TABLE audit_log (
     id bigserial PRIMARY KEY, at bigint NOT NULL, actor text NOT NULL, action text NOT NULL,
     project_id text, target text, detail jsonb, address text);
   CREATE INDEX audit_log_by_project ON audit_log (project_id, id DESC);
   ALTER TABLE threads ADD COLUMN handoff_at bigint;
   CREATE INDEX threads_by_project ON threads (project_id, updated_at DESC, id DESC);
   CREATE INDEX messages_search ON messages USING gin (to_tsvector('simple', content));
   CREATE INDEX feedback_by_project ON feedback (project_id, message_id);
   CREATE TABLE activity_daily (
     project_id text NOT NULL, day int NOT NULL, integration_id text NOT NULL, sessions int NOT NULL, threads int NOT NULL,
     messages int NOT NULL, upvotes int NOT NULL, downvotes int NOT NULL, prompt_tokens bigint NOT NULL, completion_tokens bigint NOT NULL,
     PRIMARY KEY (project_id, day, integration_id));
   CREATE TABLE activity_daily_sessions (
     project_id text NOT NULL, integration_id text NOT NULL, day int NOT NULL, sessions int NOT NULL, PRIMARY KEY (project_id, integration_id, day));
   CREATE TABLE activity_owners (
     project_id text NOT NULL, integration_id text NOT NULL, owner_hash bigint NOT NULL, days int4multirange NOT NULL,
     PRIMARY KEY (project_id, integration_id, owner_hash));`,
  // The fleet: session tokens kept as SHA-256 hashes (no token read back authenticates; the
  // rollup is rebuilt so no raw token stays in it), which instance generates each answer,
  // instance leases, fleet-wide rate windows and concurrent-answer slots, and when the rollup
  // was last refreshed.
  `ALTER TABLE sessions RENAME COLUMN token TO token_hash;
   UPDATE sessions SET token_hash = encode(sha256(convert_to(token_hash, 'UTF8')), 'hex');
   UPDATE events SET session_token = encode(sha256(convert_to(session_token, 'UTF8')), 'hex');
   UPDATE feedback SET session_token = encode(sha256(convert_to(session_token, 'UTF8')), 'hex'),
     voter = CASE WHEN voter LIKE 'session:%' THEN 'session:' || encode(sha256(convert_to(substr(voter, 9), 'UTF8')), 'hex') ELSE voter END;
   REFRESH MATERIALIZED VIEW activity_rollup;
   ALTER TABLE messages ADD COLUMN instance_id text;
   CREATE TABLE instances (id text PRIMARY KEY, started_at bigint NOT NULL, seen_at bigint NOT NULL);
   CREATE TABLE rate_windows (key text PRIMARY KEY, reset_at bigint NOT NULL, count int NOT NULL);
   CREATE INDEX rate_windows_by_age ON rate_windows (reset_at);
   CREATE TABLE answer_slots (
     key text NOT NULL, slot int NOT NULL, answer_id text NOT NULL UNIQUE, instance_id text NOT NULL, taken_at bigint NOT NULL,
     PRIMARY KEY (key, slot));
   CREATE TABLE fleet_state (name text PRIMARY KEY, at bigint NOT NULL);`,
  // Public integrations (§2b): marked public with daily budgets; sessions they mint name them;
  // solved challenges kept until they expire (no replay anywhere in the fleet); what each
  // integration spent per UTC day.
  `ALTER TABLE integrations ADD COLUMN public boolean NOT NULL DEFAULT false,
     ADD COLUMN session_budget int NOT NULL DEFAULT 500, ADD COLUMN answer_budget int NOT NULL DEFAULT 2000;
   ALTER TABLE sessions ADD COLUMN integration_id text;
   CREATE TABLE spent_challenges (challenge text PRIMARY KEY, expires_at bigint NOT NULL);
   CREATE INDEX spent_challenges_expires ON spent_challenges (expires_at);
   CREATE TABLE public_budgets (
     project_id text NOT NULL, integration_id text NOT NULL, day int NOT NULL,
     sessions int NOT NULL DEFAULT 0, answers int NOT NULL DEFAULT 0, PRIMARY KEY (project_id, integration_id, day));`,
  // Files visitors attach to questions (wire contract §11): their bytes in the database, linked
  // to the thread of the question that uses them (deleted with it; with the project), unused ones
  // purged after a day; the files a question lists on its message; what each integration allows.
  `ALTER TABLE messages ADD COLUMN attachments jsonb NOT NULL DEFAULT '[]';
   CREATE TABLE files (
     id text PRIMARY KEY, project_id text NOT NULL REFERENCES projects (id) ON DELETE CASCADE, integration_id text NOT NULL,
     uploader text NOT NULL, name text NOT NULL, content_type text NOT NULL, kind text NOT NULL, size int NOT NULL,
     bytes bytea NOT NULL, created_at bigint NOT NULL, thread_id text REFERENCES threads (id) ON DELETE CASCADE);
   CREATE INDEX files_unused_by_uploader ON files (project_id, uploader) WHERE thread_id IS NULL;
   CREATE INDEX files_unused_by_integration ON files (project_id, integration_id) WHERE thread_id IS NULL;
   CREATE INDEX files_unused_by_age ON files (created_at) WHERE thread_id IS NULL;
   CREATE INDEX files_by_thread ON files (thread_id);
   CREATE TABLE file_settings (
     project_id text NOT NULL, integration_id text NOT NULL, settings jsonb NOT NULL, PRIMARY KEY (project_id, integration_id),
     FOREIGN KEY (project_id, integration_id) REFERENCES integrations (project_id, id) ON DELETE CASCADE);`,
  // The documentation the agents answer from, per project (decisions 294, 298): sources, pages
  // with their validators (a page that left the site stays as a row without sections, so an
  // answer that cited it can say so), sections with their embeddings, crawl runs with their
  // failures; each project's index version, and the crawl lease, so a fleet shares one index per
  // project and one instance crawls at a time.
  `CREATE TABLE doc_sources (
     id text PRIMARY KEY, project_id text NOT NULL, location text NOT NULL, kind text NOT NULL, public_url text,
     created_at bigint NOT NULL, last_crawl_at bigint, next_crawl_at bigint NOT NULL,
     UNIQUE (project_id, location));
   CREATE TABLE doc_pages (
     source_id text NOT NULL REFERENCES doc_sources (id) ON DELETE CASCADE, url text NOT NULL, title text NOT NULL,
     etag text, last_modified text, hash text NOT NULL, links jsonb NOT NULL, changed_at bigint NOT NULL,
     removed_at bigint, PRIMARY KEY (source_id, url));
   CREATE INDEX doc_pages_by_url ON doc_pages (url);
   CREATE TABLE doc_sections (
     id bigserial PRIMARY KEY, source_id text NOT NULL, page_url text NOT NULL, position int NOT NULL,
     url text NOT NULL, title text NOT NULL, headings jsonb NOT NULL, body text NOT NULL,
     embedding real[], embedding_model text,
     FOREIGN KEY (source_id, page_url) REFERENCES doc_pages (source_id, url) ON DELETE CASCADE);
   CREATE INDEX doc_sections_by_page ON doc_sections (source_id, page_url, position);
   CREATE TABLE doc_crawl_runs (
     id bigserial PRIMARY KEY, source_id text NOT NULL REFERENCES doc_sources (id) ON DELETE CASCADE,
     started_at bigint NOT NULL, finished_at bigint NOT NULL, complete boolean NOT NULL, truncated boolean NOT NULL,
     pages_new int NOT NULL, pages_changed int NOT NULL, pages_unchanged int NOT NULL, pages_removed int NOT NULL,
     failures jsonb NOT NULL);
   CREATE INDEX doc_crawl_runs_by_source ON doc_crawl_runs (source_id, id DESC);
   CREATE TABLE doc_versions (project_id text PRIMARY KEY, version bigint NOT NULL);
   CREATE TABLE doc_crawl_lease (one boolean PRIMARY KEY DEFAULT true CHECK (one), holder text NOT NULL, until bigint NOT NULL);`,
  // Sign-in attempts are counted before the password is checked: each row names its attempt,
  // so one refused before its check, or one that succeeded, takes its rows back. A session
  // names the key that minted it, and a key when its sessions were ended. Fleet signals are
  // sealed with a key only readers of the tables hold. A cancel its host never confirmed marks
  // the answer, so ending it as an orphan stores it stopped.
  `ALTER TABLE sign_in_failures ADD COLUMN attempt text;
   CREATE INDEX sign_in_failures_by_attempt ON sign_in_failures (attempt);
   ALTER TABLE sessions ADD COLUMN key_id text;
   CREATE INDEX sessions_by_key ON sessions (key_id) WHERE key_id IS NOT NULL;
   ALTER TABLE api_keys ADD COLUMN sessions_ended_at bigint;
   CREATE TABLE fleet_secret (id int PRIMARY KEY CHECK (id = 1), key text NOT NULL);
   ALTER TABLE messages ADD COLUMN stop_requested boolean NOT NULL DEFAULT false;`,
  // A docs source keeps the paths its owner excludes (decision 416); a crawl run counts the
  // addresses they kept it from.
  `ALTER TABLE doc_sources ADD COLUMN exclude jsonb NOT NULL DEFAULT '[]'::jsonb;
   ALTER TABLE doc_crawl_runs ADD COLUMN pages_excluded int NOT NULL DEFAULT 0;`,
  // A project's synonyms: the words its owner says mean one thing on their site (decision 422).
  `CREATE TABLE doc_synonyms (project_id text PRIMARY KEY, groups jsonb NOT NULL);`,
  // How far each crawl under way has got, written by the instance crawling it about once a second
  // and cleared with its run, so any instance's console shows it (decision 435).
  `CREATE TABLE doc_crawl_progress (
     source_id text PRIMARY KEY REFERENCES doc_sources (id) ON DELETE CASCADE, phase text NOT NULL,
     pages_read int NOT NULL, pages_failed int NOT NULL, started_at bigint NOT NULL, updated_at bigint NOT NULL);`,
  // A crawl run counts the addresses the site's robots.txt kept it from, beside the excluded ones (decision 460).
  `ALTER TABLE doc_crawl_runs ADD COLUMN pages_disallowed int NOT NULL DEFAULT 0;`,
  // The question each Idempotency-Key asked, unique per project and owner ('' for sessions without
  // one), written with the question's begin, so that two requests with one key make one answer
  // wherever they arrive (decision 453). A thread's delete takes its keys; a day forgets them.
  `CREATE TABLE idempotency_keys (
     project_id text NOT NULL, scope text NOT NULL, key text NOT NULL, fingerprint text NOT NULL,
     thread_id text NOT NULL, answer_id text NOT NULL, created_at bigint NOT NULL,
     PRIMARY KEY (project_id, scope, key));
   CREATE INDEX idempotency_keys_by_thread ON idempotency_keys (thread_id);
   CREATE INDEX idempotency_keys_by_time ON idempotency_keys (created_at);`,
  // Why an answer failed, kept with it for the console (decision 496); failed answers counted in
  // the rollup and the console's day-level summaries, from a \`failed\` event each (decision 497).
  `ALTER TABLE messages ADD COLUMN failure_code text, ADD COLUMN failure_message text;
   DROP MATERIALIZED VIEW activity_rollup;
   CREATE MATERIALIZED VIEW activity_rollup AS
     SELECT project_id, day, session_token, max(owner) AS owner, integration_id,
       sum(sessions)::int AS sessions, sum(threads)::int AS threads, sum(messages)::int AS messages,
       sum(upvotes)::int AS upvotes, sum(downvotes)::int AS downvotes,
       sum(prompt_tokens)::bigint AS prompt_tokens, sum(completion_tokens)::bigint AS completion_tokens,
       sum(failed_answers)::int AS failed_answers
     FROM (
       SELECT project_id, at / 86400000 AS day, session_token, owner, coalesce(integration_id, '') AS integration_id,
         (kind = 'session')::int AS sessions, (kind = 'thread')::int AS threads, (kind = 'message')::int AS messages,
         0 AS upvotes, 0 AS downvotes, prompt_tokens, completion_tokens, (kind = 'failed')::int AS failed_answers
       FROM events
       UNION ALL
       SELECT project_id, at / 86400000, session_token, owner, integration_id, 0, 0, 0,
         (reaction = 'upvote')::int, (reaction = 'downvote')::int, 0, 0, 0
       FROM feedback
     ) AS facts
     GROUP BY project_id, day, session_token, integration_id;
   CREATE UNIQUE INDEX activity_rollup_key ON activity_rollup (project_id, day, session_token, integration_id);
   ALTER TABLE activity_daily ADD COLUMN failed_answers int NOT NULL DEFAULT 0;`,
  // While an answer generates, the session and integration its `failed` event would count under,
  // so that one ended as lost by another instance is counted too (decision 512); its end clears them.
  `ALTER TABLE messages ADD COLUMN counted_session text, ADD COLUMN counted_integration text;`,
  // The reason a failed answer's stream ended with, so that a reattach ends the same (decision 524).
  `ALTER TABLE messages ADD COLUMN failure_reason text;`,
  // The retention period's purge takes the threads whose last message is oldest, across projects (decision 603).
  `CREATE INDEX threads_by_age ON threads (updated_at);`,
  // Webhooks each project notifies and one delivery per event and webhook, claimed by one
  // instance at a time (decisions 612-617); a project's delete takes its webhooks, a webhook's its deliveries.
  `CREATE TABLE webhooks (
     id text PRIMARY KEY, project_id text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
     url text NOT NULL, events jsonb NOT NULL, secret text NOT NULL, created_at bigint NOT NULL);
   CREATE INDEX webhooks_by_project ON webhooks (project_id);
   CREATE TABLE webhook_deliveries (
     id text PRIMARY KEY, webhook_id text NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
     thread_id text, event text NOT NULL, dedupe text NOT NULL, body text NOT NULL, status text NOT NULL,
     attempts int NOT NULL DEFAULT 0, created_at bigint NOT NULL, next_at bigint NOT NULL,
     claimed_until bigint NOT NULL DEFAULT 0, last_at bigint, last_code int, last_error text,
     UNIQUE (webhook_id, dedupe));
   CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_at) WHERE status = 'pending';
   CREATE INDEX webhook_deliveries_by_webhook ON webhook_deliveries (webhook_id, created_at DESC);
   CREATE INDEX webhook_deliveries_by_time ON webhook_deliveries (created_at);
   CREATE INDEX webhook_deliveries_by_thread ON webhook_deliveries (thread_id);`,
  // A page's other addresses with their validators, revalidated as copies by the next crawl (decision 642).
  `ALTER TABLE doc_pages ADD COLUMN copies jsonb NOT NULL DEFAULT '[]';`,
  // When each console admin last signed in, for the admins' list (decision 691).
  `ALTER TABLE admins ADD COLUMN last_sign_in_at bigint;`,
  // What each console account may do (decision 718); those from before roles keep doing everything.
  `ALTER TABLE admins ADD COLUMN role text NOT NULL DEFAULT 'admin' CHECK (role IN ('admin', 'viewer'));
   CREATE INDEX audit_log_by_actor ON audit_log (actor, id);
   CREATE INDEX audit_log_by_action ON audit_log (action, id);`,
  // The widget releases the fleet served, with their files, so that a page pinned to one keeps
  // loading it after an upgrade, from any instance (decision 741).
  `CREATE TABLE widget_releases (
     version text PRIMARY KEY, sri jsonb NOT NULL, bytes bigint NOT NULL,
     stored_at bigint NOT NULL, loaded_at bigint);
   CREATE TABLE widget_files (
     version text NOT NULL REFERENCES widget_releases (version) ON DELETE CASCADE,
     name text NOT NULL, body bytea NOT NULL, gzip bytea, PRIMARY KEY (version, name));`,
  // The origins public integrations refused, for the whole fleet: each instance writes an origin
  // at most once a UTC day, the newest 10 an integration, 30 days (decision 750).
  `CREATE TABLE public_refusals (
     project_id text NOT NULL, integration_id text NOT NULL, origin text NOT NULL,
     count bigint NOT NULL, last_at bigint NOT NULL,
     PRIMARY KEY (project_id, integration_id, origin));`,
  // Each docs page an answer cites (its address without the fragment), with the answer's time,
  // so that the stale sources go from the few pages changed or removed to their citations
  // instead of reading every answer's sources (decision 747). Written by a trigger on messages,
  // in the statement that stores the sources, whichever build stores them (a build a release
  // behind included); filled here for the answers before it; deleted with the message. (The
  // function's statements end mid-line: a migration is split where a line ends in a semicolon.)
  `CREATE TABLE citations (
     message_id text NOT NULL REFERENCES messages (id) ON DELETE CASCADE, url text NOT NULL,
     project_id text NOT NULL, thread_id text NOT NULL, created_at bigint NOT NULL,
     PRIMARY KEY (message_id, url));
   CREATE INDEX citations_by_page ON citations (project_id, url, created_at);
   CREATE INDEX citations_by_thread ON citations (thread_id);
   CREATE FUNCTION cite_sources() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
     IF TG_OP = 'UPDATE' THEN DELETE FROM citations WHERE message_id = NEW.id; END IF; INSERT INTO citations
       SELECT DISTINCT NEW.id, split_part(c->>'source_url', '#', 1), t.project_id, NEW.thread_id, NEW.created_at
       FROM threads t CROSS JOIN jsonb_array_elements(NEW.sources) c
       WHERE t.id = NEW.thread_id AND c->>'source_url' IS NOT NULL
       ON CONFLICT DO NOTHING; RETURN NULL; END $$;
   CREATE TRIGGER messages_cite AFTER INSERT ON messages FOR EACH ROW EXECUTE FUNCTION cite_sources();
   CREATE TRIGGER messages_recite AFTER UPDATE OF sources ON messages FOR EACH ROW
     WHEN (OLD.sources IS DISTINCT FROM NEW.sources) EXECUTE FUNCTION cite_sources();
   INSERT INTO citations
     SELECT DISTINCT m.id, split_part(c->>'source_url', '#', 1), t.project_id, m.thread_id, m.created_at
     FROM messages m JOIN threads t ON t.id = m.thread_id CROSS JOIN jsonb_array_elements(m.sources) c
     WHERE c->>'source_url' IS NOT NULL;`,
  // What a docs page's sitemap <lastmod> said when it was last read or revalidated, and when that
  // was: a re-crawl asks nothing of a page the sitemap vouches for, within a bound (decision 752).
  `ALTER TABLE doc_pages ADD COLUMN sitemap_lastmod bigint, ADD COLUMN checked_at bigint;`,
  // Of a docs crawl, the pages the sitemap's lastmod spared a request, and when the site's lastmod
  // was caught lying, while the next crawl is to believe none of it (decision 785). A build a
  // release behind writes runs without them: none spared, no lie kept (732).
  `ALTER TABLE doc_crawl_runs ADD COLUMN pages_spared int NOT NULL DEFAULT 0, ADD COLUMN lastmod_lie_at bigint;`,
  // A public integration's files of the day, used or not, summed at each of its uploads (decision 797).
  `CREATE INDEX files_by_integration_day ON files (project_id, integration_id, created_at);`,
];
