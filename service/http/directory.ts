import type { ApiKeyRecord, IntegrationRecord, ProjectRecord } from '../storage/console-types.js';
import { SIGNALS_LOST, type StoresOf } from '../storage/types.js';
import type { Clock } from '../kernel/clock.js';
import { randomId } from '../kernel/ids.js';
import { randomSecret, sha256Hex } from '../kernel/secrets.js';

/** A project given at start (the `projects` option, the CLI flags): made to exist, idempotently. */
export interface ProjectConfig {
  id: string;
  /** A key the project accepts; stored as its hash like any other. None: keys come from the console. */
  apiKey?: string;
  integrationIds: string[];
  /** When given, the allowed origins of each of `integrationIds` (replacing what was stored). */
  allowedOrigins?: string[];
  /** When true, each of `integrationIds` is public (§2b); it needs `allowedOrigins`. Absent: as stored. */
  public?: boolean;
}

/** A project as the agent API reads it: the stored records, cached for a few seconds. */
export interface ProjectView {
  project: ProjectRecord;
  id: string;
  integrations: ReadonlyMap<string, IntegrationRecord>;
  integrationIds: string[];
  keys: readonly ApiKeyRecord[];
  loadedAt: number;
}

export const keyIsLive = (key: ApiKeyRecord, now: number) =>
  key.revokedAt === null && (key.expiresAt === null || key.expiresAt > now);

/** How many projects the cache holds (unknown ids included) before it starts over. */
const MAX_CACHED = 1_000;
/** A miss re-reads the project's keys at most this often (a key just made elsewhere works at once). */
const MISS_RELOAD_MS = 1_000;
/** `last_used_at` is written at most this often per key and instance. */
const TOUCH_EVERY_MS = 60_000;

/**
 * The fleet signal a directory change sends: the project whose cached view every instance drops
 * (the sessions' and answers' decoders ignore the kind, as any they do not know).
 */
const DIRECTORY_CHANGED = 'directory-changed\n';

/**
 * The projects, integrations and API keys the agent API checks, read from storage and kept
 * for `ttlMs`. A change made through the console takes effect on every instance of a fleet at
 * once, by a fleet signal (decision 640); an instance that misses it (its LISTEN connection
 * down) within `ttlMs`, when its cache entry expires.
 */
export class Directory {
  /** Unknown ids are cached too, for the same time, so probing them costs no query each. */
  private readonly cache = new Map<string, { at: number; view: Promise<ProjectView | undefined> }>();
  private seeded: Promise<void> | undefined;
  private readonly touched = new Map<string, number>();
  /** The fleet's signals, joined once (again after a failure); resolves to how to leave them. */
  private joined: Promise<() => Promise<void>> | undefined;

  constructor(
    /** The directory's records; the accounts' audit log for what the start-up projects change. */
    private readonly storage: StoresOf<'directory' | 'accounts' | 'fleet'>,
    private readonly clock: Clock,
    private readonly seeds: readonly ProjectConfig[],
    readonly ttlMs = 5_000,
  ) {}

  /**
   * The allowed origins the start-up flags give the integration, which each start writes over
   * the console's list (decision 200); null when they give none (decision 717).
   */
  originsAtStart(projectId: string, integrationId: string): readonly string[] | null {
    const seed = this.seeds.find((s) => s.id === projectId && s.integrationIds.includes(integrationId));
    return seed?.allowedOrigins ?? null;
  }

  /** Writes the start-up projects once (again after a failure). */
  ready(): Promise<void> {
    this.seeded ??= this.seed().catch((error) => {
      this.seeded = undefined;
      throw error;
    });
    return this.seeded;
  }

  async project(id: string): Promise<ProjectView | undefined> {
    await this.ready();
    const entry = this.cache.get(id);
    if (entry && this.clock.now() - entry.at < this.ttlMs) return entry.view;
    return this.load(id);
  }

  /**
   * Hears the fleet's directory changes (on the instance's one LISTEN connection, decision 632);
   * the service joins before its first request. A view being read when its change arrives is
   * dropped too: its entry leaves the cache, whatever the read returns.
   */
  async listen(): Promise<void> {
    this.joined ??= this.storage.fleet
      .subscribe((message) => {
        // Signals missed: any view may be stale.
        if (message === SIGNALS_LOST) return this.cache.clear();
        if (message.startsWith(DIRECTORY_CHANGED)) this.cache.delete(message.slice(DIRECTORY_CHANGED.length));
      })
      .catch((error: unknown) => {
        this.joined = undefined;
        throw error;
      });
    await this.joined;
  }

  /** Stops hearing the fleet (the instance closes): its LISTEN connection closes after the last listener. */
  async close(): Promise<void> {
    const joined = this.joined;
    this.joined = undefined;
    const leave = await joined?.catch(() => undefined);
    await leave?.();
  }

  /**
   * The project's records changed: its view is dropped here, and on every other instance by a
   * fleet signal. A signal that fails to go out does not fail the change (`ttlMs` bounds it).
   */
  async invalidate(id: string): Promise<void> {
    this.cache.delete(id);
    await this.storage.fleet.publish([DIRECTORY_CHANGED + id]).catch(() => {});
  }

  /** The live key of the project `presented` is (undefined: none); notes its use. */
  async verifyKey(view: ProjectView, presented: string): Promise<ApiKeyRecord | undefined> {
    const hash = await sha256Hex(presented);
    const now = this.clock.now();
    let key = view.keys.find((k) => k.hash === hash);
    if (!key && now - view.loadedAt >= MISS_RELOAD_MS)
      key = (await this.load(view.id))?.keys.find((k) => k.hash === hash);
    if (!key || !keyIsLive(key, now)) return undefined;
    if (now - (this.touched.get(key.id) ?? Number.NEGATIVE_INFINITY) >= TOUCH_EVERY_MS) {
      this.touched.set(key.id, now);
      if (this.touched.size > MAX_CACHED * 10) this.touched.clear();
      // Not awaited: the mint does not wait for a bookkeeping write.
      void this.storage.directory.updateApiKey(view.id, key.id, { lastUsedAt: now }).catch(() => {});
    }
    return key;
  }

  private load(id: string): Promise<ProjectView | undefined> {
    if (this.cache.size >= MAX_CACHED) this.cache.clear();
    const at = this.clock.now();
    const view = (async () => {
      const project = await this.storage.directory.getProject(id);
      if (!project) return undefined;
      const [integrations, keys] = await Promise.all([
        this.storage.directory.listIntegrations(id),
        this.storage.directory.listApiKeys(id),
      ]);
      return {
        project,
        id,
        integrations: new Map(integrations.map((i) => [i.id, i])),
        integrationIds: integrations.map((i) => i.id),
        keys,
        loadedAt: at,
      };
    })();
    const entry = { at, view };
    this.cache.set(id, entry);
    // A failed read is not remembered.
    view.catch(() => this.cache.get(id) === entry && this.cache.delete(id));
    return view;
  }

  private async seed(): Promise<void> {
    for (const config of this.seeds) {
      const now = this.clock.now();
      if (
        await this.storage.directory.createProject({
          id: config.id,
          name: config.id,
          ownerSecret: randomSecret(),
          createdAt: now,
        })
      ) {
        await this.audit('project.create', config.id, config.id);
      }
      for (const integrationId of config.integrationIds)
        await this.seedIntegration(config, integrationId, now);
      if (config.apiKey) await this.seedKey(config.id, config.apiKey, now);
      // Every instance writes the same start-up records: none needs telling.
      this.cache.delete(config.id);
    }
  }

  /** The integration exists, with the start-up origins when they are given. */
  private async seedIntegration(config: ProjectConfig, integrationId: string, now: number): Promise<void> {
    const integration = {
      projectId: config.id,
      id: integrationId,
      name: integrationId,
      allowedOrigins: config.allowedOrigins ?? [],
      public: config.public === true,
      createdAt: now,
    };
    if (await this.storage.directory.createIntegration(integration)) {
      await this.audit('integration.create', config.id, integrationId, {
        allowed_origins: integration.allowedOrigins,
        ...(integration.public && { public: true }),
      });
      return;
    }
    const before = (await this.storage.directory.listIntegrations(config.id)).find(
      (i) => i.id === integrationId,
    );
    const patch = {
      ...(config.allowedOrigins &&
        before?.allowedOrigins.join('\n') !== config.allowedOrigins.join('\n') && {
          allowedOrigins: config.allowedOrigins,
        }),
      ...(config.public && !before?.public && { public: true }),
    };
    if (!Object.keys(patch).length) return;
    await this.storage.directory.updateIntegration(config.id, integrationId, patch);
    await this.audit('integration.update', config.id, integrationId, {
      ...(patch.allowedOrigins && { allowed_origins: patch.allowedOrigins }),
      ...(patch.public && { public: true }),
    });
  }

  /** The start-up key exists, unless it was revoked in the console: restarting with the old flag does not revive it. */
  private async seedKey(projectId: string, apiKey: string, now: number): Promise<void> {
    const hash = await sha256Hex(apiKey);
    if ((await this.storage.directory.listApiKeys(projectId)).some((k) => k.hash === hash)) return;
    const key = {
      id: randomId('key'),
      projectId,
      name: 'Start-up key',
      prefix: apiKey.slice(0, 4),
      hash,
      createdAt: now,
      lastUsedAt: null,
      expiresAt: null,
      revokedAt: null,
      sessionsEndedAt: null,
    };
    if (await this.storage.directory.createApiKey(key))
      await this.audit('key.create', projectId, key.id, { name: key.name, prefix: key.prefix });
  }

  private audit(
    action: string,
    projectId: string,
    target: string,
    detail: Record<string, unknown> | null = null,
  ) {
    return this.storage.accounts.appendAudit({
      at: this.clock.now(),
      actor: 'start-up',
      action,
      projectId,
      target,
      detail,
      address: null,
    });
  }
}
