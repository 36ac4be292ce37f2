/** The console's client for its JSON API (same origin, cookie session, CSRF header on every change). */
import {
  type ConsoleActivity,
  type ConsoleAdmin,
  type ConsoleAdmins,
  type ConsoleSessionsEnded,
  type ConsoleApiKey,
  type ConsoleFileSettings,
  type ConsoleFileSettingsView,
  type ConsoleAuditPage,
  type ConsoleDocHits,
  type ConsoleDocSynonyms,
  type ConsoleDocSource,
  type ConsoleDocSources,
  type ConsoleDocStale,
  type ConsoleIntegration,
  type ConsoleKeyRotation,
  type ConsoleName,
  type ConsoleNewAdmin,
  type ConsoleNewSource,
  type ConsolePasswordChange,
  type ConsoleRoleChange,
  type ConsoleSignIn,
  type ConsoleSourceChange,
  type ConsoleIntegrationPatch,
  type ConsoleInstall,
  type ConsoleWidgetReleases,
  type ConsoleNewKey,
  type ConsoleNewWebhook,
  type ConsoleOwner,
  type ConsoleOwnerErasure,
  type ConsoleProject,
  type ConsoleRole,
  type ConsoleRotatedKey,
  type ConsoleSession,
  type ConsoleSignedIn,
  type ConsoleThreadDetail,
  type ConsoleThreadPage,
  type ConsoleWebhookList,
  type ConsoleWebhookDelivery,
  type ConsoleWebhookInput,
  consolePaths as paths,
} from '../../contract/console.js';

export class ConsoleApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly retryAfter: number | null = null,
  ) {
    super(message);
  }
}

/**
 * A change a page makes: `say('')` first, then, if it fails, `say` the service's words for why
 * (`fallback` when it gave none). One place for the pages' and forms' changes alike.
 */
export async function attempt(
  action: () => Promise<unknown>,
  say: (error: string) => void,
  fallback = 'That did not work.',
): Promise<void> {
  say('');
  try {
    await action();
  } catch (error) {
    say(error instanceof ConsoleApiError ? error.message : fallback);
  }
}

/** `api/` beside any console page: every page sits one level under /console/. */
const apiBase = () => new URL('api/', new URL('.', location.href)).href;

/** The Audit log page's filters (decision 719), as its address has them. */
export interface AuditQuery {
  actor?: string;
  action?: string;
  /** UTC days, both included. */
  start?: string;
  end?: string;
}

export class ConsoleApi {
  csrf = '';
  /**
   * The signed-in account's role (decision 718): what the pages offer. The service checks every
   * call itself; this only spares a viewer buttons that would be refused.
   */
  role: ConsoleRole = 'admin';
  /** Called when the session has ended (401): the app shows the sign-in form. */
  onSignedOut: () => void = () => {};

  constructor(private readonly base = apiBase()) {}

  url(path: string, query: Record<string, string | undefined> = {}): string {
    const url = new URL(path.replace(/^\//, ''), this.base);
    for (const [key, value] of Object.entries(query)) if (value) url.searchParams.set(key, value);
    return url.href;
  }

  async call<T>(
    method: string,
    path: string,
    options: { body?: unknown; query?: Record<string, string | undefined>; quiet401?: boolean } = {},
  ): Promise<T> {
    const headers: Record<string, string> = {};
    if (method !== 'GET') headers['X-CSRF-Token'] = this.csrf;
    if (options.body !== undefined) headers['Content-Type'] = 'application/json';
    let response: Response;
    try {
      response = await fetch(this.url(path, options.query), {
        method,
        headers,
        body: options.body === undefined ? undefined : JSON.stringify(options.body),
        credentials: 'same-origin',
      });
    } catch {
      throw new ConsoleApiError(
        0,
        'network',
        'The service could not be reached. Check your connection and try again.',
      );
    }
    if (response.status === 204) return undefined as T;
    const data = await response.json().catch(() => null);
    if (!response.ok) {
      if (response.status === 401 && data?.code === 'signed_out' && !options.quiet401) this.onSignedOut();
      const retry = Number(response.headers.get('Retry-After'));
      throw new ConsoleApiError(
        response.status,
        data?.code ?? 'http',
        data?.detail ?? `The service answered ${response.status}.`,
        Number.isFinite(retry) && retry > 0 ? retry : null,
      );
    }
    return data as T;
  }

  async session(): Promise<{ username: string } | null> {
    const s = await this.call<ConsoleSession>('GET', paths.session);
    if (s.username === null) return null;
    this.csrf = s.csrf_token;
    this.role = s.role;
    return { username: s.username };
  }

  async signIn(username: string, password: string): Promise<{ username: string }> {
    const s = await this.call<ConsoleSignedIn>('POST', paths.session, {
      body: { username, password } satisfies ConsoleSignIn,
      quiet401: true,
    });
    this.csrf = s.csrf_token;
    this.role = s.role;
    return s;
  }

  signOut = () => this.call<void>('DELETE', paths.session);
  projects = () => this.call<{ projects: ConsoleProject[] }>('GET', paths.projects).then((r) => r.projects);
  createProject = (name: string) =>
    this.call<ConsoleProject>('POST', paths.projects, { body: { name } satisfies ConsoleName });
  renameProject = (id: string, name: string) =>
    this.call<ConsoleProject>('PATCH', paths.project(id), { body: { name } satisfies ConsoleName });
  deleteProject = (id: string) => this.call<void>('DELETE', paths.project(id), { query: { confirm: id } });
  createIntegration = (projectId: string, name: string) =>
    this.call<ConsoleIntegration>('POST', paths.integrations(projectId), {
      body: { name } satisfies ConsoleName,
    });
  updateIntegration = (projectId: string, id: string, patch: ConsoleIntegrationPatch) =>
    this.call<ConsoleIntegration>('PATCH', paths.integration(projectId, id), { body: patch });
  deleteIntegration = (projectId: string, id: string) =>
    this.call<void>('DELETE', paths.integration(projectId, id));
  keys = (projectId: string) =>
    this.call<{ keys: ConsoleApiKey[] }>('GET', paths.keys(projectId)).then((r) => r.keys);
  createKey = (projectId: string, name: string) =>
    this.call<ConsoleNewKey>('POST', paths.keys(projectId), { body: { name } satisfies ConsoleName });
  rotateKey = (projectId: string, id: string, overlapSeconds: number) =>
    this.call<ConsoleRotatedKey>('POST', paths.keyRotation(projectId, id), {
      body: { overlap_seconds: overlapSeconds } satisfies ConsoleKeyRotation,
    });
  revokeKey = (projectId: string, id: string, options: { endSessions?: boolean } = {}) =>
    this.call<ConsoleApiKey>('DELETE', paths.key(projectId, id), {
      query: { end_sessions: options.endSessions ? '1' : undefined },
    });
  webhooks = (projectId: string) => this.call<ConsoleWebhookList>('GET', paths.webhooks(projectId));
  createWebhook = (projectId: string, input: ConsoleWebhookInput) =>
    this.call<ConsoleNewWebhook>('POST', paths.webhooks(projectId), { body: input });
  testWebhook = (projectId: string, id: string) =>
    this.call<ConsoleWebhookDelivery>('POST', paths.webhookTest(projectId, id), { body: {} });
  deleteWebhook = (projectId: string, id: string) => this.call<void>('DELETE', paths.webhook(projectId, id));
  activity = (projectId: string, query: Record<string, string | undefined>) =>
    this.call<ConsoleActivity>('GET', paths.activity(projectId), { query });
  activityCsvUrl = (projectId: string, query: Record<string, string | undefined>) =>
    this.url(paths.activity(projectId), { ...query, format: 'csv' });
  conversations = (projectId: string, query: Record<string, string | undefined>) =>
    this.call<ConsoleThreadPage>('GET', paths.conversations(projectId), { query });
  /** Every conversation the list's filters match, as a file (`csv` or `jsonl`). */
  conversationsExportUrl = (
    projectId: string,
    query: Record<string, string | undefined>,
    format: 'csv' | 'jsonl',
  ) => this.url(paths.conversations(projectId), { ...query, format });
  conversation = (projectId: string, id: string) =>
    this.call<ConsoleThreadDetail>('GET', paths.conversation(projectId, id));
  deleteConversation = (projectId: string, id: string) =>
    this.call<void>('DELETE', paths.conversation(projectId, id));
  conversationOwner = (projectId: string, id: string) =>
    this.call<ConsoleOwner>('GET', paths.conversationOwner(projectId, id));
  eraseOwner = (projectId: string, id: string) =>
    this.call<ConsoleOwnerErasure>('DELETE', paths.conversationOwner(projectId, id));
  admins = () => this.call<ConsoleAdmins>('GET', paths.admins);
  addAdmin = (username: string, password: string, role: ConsoleRole) =>
    this.call<ConsoleAdmin>('POST', paths.admins, {
      body: { username, password, role } satisfies ConsoleNewAdmin,
    });
  setRole = (username: string, role: ConsoleRole) =>
    this.call<{ username: string; role: ConsoleRole }>('PATCH', paths.admin(username), {
      body: { role } satisfies ConsoleRoleChange,
    });
  removeAdmin = (username: string) => this.call<void>('DELETE', paths.admin(username));
  changePassword = (current: string, next: string) =>
    this.call<ConsoleSessionsEnded>('PUT', paths.password, {
      body: { current_password: current, new_password: next } satisfies ConsolePasswordChange,
    });
  endOtherSessions = () => this.call<ConsoleSessionsEnded>('DELETE', paths.otherSessions);
  audit = (query: AuditQuery, before?: number) =>
    this.call<ConsoleAuditPage>('GET', paths.audit, { query: { ...query, before: before?.toString() } });
  install = () => this.call<ConsoleInstall>('GET', paths.install);
  widgetReleases = () => this.call<ConsoleWidgetReleases>('GET', paths.widgetReleases);
  fileSettings = (projectId: string, integrationId: string) =>
    this.call<ConsoleFileSettingsView>('GET', paths.integrationFiles(projectId, integrationId));
  saveFileSettings = (projectId: string, integrationId: string, settings: ConsoleFileSettings) =>
    this.call<ConsoleFileSettingsView>('PUT', paths.integrationFiles(projectId, integrationId), {
      body: settings,
    });

  /** A visitor's file, as bytes for a thumbnail or a download (never opened as a page); a download is audited. */
  async file(projectId: string, fileId: string, download = false): Promise<Blob> {
    const url = this.url(paths.file(projectId, fileId), { download: download ? '1' : undefined });
    const response = await fetch(url, { credentials: 'same-origin' });
    if (!response.ok)
      throw new ConsoleApiError(
        response.status,
        'http',
        `The file could not be loaded (${response.status}).`,
      );
    return response.blob();
  }
  sources = (projectId: string) => this.call<ConsoleDocSources>('GET', paths.docsSources(projectId));
  staleConversations = (projectId: string) => this.call<ConsoleDocStale>('GET', paths.docsStale(projectId));
  addSource = (projectId: string, location: string, exclude: string[] = []) =>
    this.call<ConsoleDocSource>('POST', paths.docsSources(projectId), {
      body: { location, exclude } satisfies ConsoleNewSource,
    });
  setExclusions = (projectId: string, id: string, exclude: string[]) =>
    this.call<ConsoleDocSource>('PATCH', paths.docsSource(projectId, id), {
      body: { exclude } satisfies ConsoleSourceChange,
    });
  removeSource = (projectId: string, id: string) =>
    this.call<void>('DELETE', paths.docsSource(projectId, id));
  recrawlSource = (projectId: string, id: string) =>
    this.call<{ scheduled: boolean }>('POST', paths.docsCrawl(projectId, id), { body: {} });
  /** `earlier`: the question asked before it in a conversation, for a follow-up (decision 450). */
  searchDocs = (projectId: string, q: string, earlier = '') =>
    this.call<ConsoleDocHits>('GET', paths.docsSearch(projectId), {
      query: earlier ? { q, earlier } : { q },
    });
  setSynonyms = (projectId: string, synonyms: string[][]) =>
    this.call<ConsoleDocSynonyms>('PUT', paths.docsSynonyms(projectId), { body: { synonyms } }).then(
      (r) => r.synonyms,
    );
}
