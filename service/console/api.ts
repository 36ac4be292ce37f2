/** The console's client for its JSON API (same origin, cookie session, CSRF header on every change). */

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

export interface Integration {
  id: string;
  name: string;
  allowed_origins: string[];
  created_at: string;
}
export interface Project {
  id: string;
  name: string;
  created_at: string;
  integrations: Integration[];
}
export interface ApiKey {
  id: string;
  name: string;
  prefix: string;
  created_at: string;
  last_used_at: string | null;
  expires_at: string | null;
  revoked_at: string | null;
  status: 'active' | 'expiring' | 'expired' | 'revoked';
}
export interface Counts {
  sessions: number;
  threads: number;
  messages: number;
  upvotes: number;
  downvotes: number;
  prompt_tokens: number;
  completion_tokens: number;
}
export interface Activity {
  period: { start: string; end: string };
  totals: Counts & { unique_owners: number };
  by_day: (Counts & { date: string })[];
  by_integration: (Counts & { integration_id: string })[];
  freshness: { as_of: string; max_staleness_seconds: number };
}
export interface ThreadSummary {
  id: string;
  title: string;
  integration_id: string;
  owner_key: string;
  created_at: string;
  updated_at: string;
  messages: number;
  upvotes: number;
  downvotes: number;
  uncertain: boolean;
  error: boolean;
  tool_used: boolean;
  handoff_at: string | null;
}
export interface ThreadDetail {
  id: string;
  title: string;
  integration_id: string;
  owner_key: string;
  created_at: string;
  updated_at: string;
  handoff_at: string | null;
  messages: {
    id: string;
    role: 'user' | 'assistant';
    content: string;
    status: string;
    created_at: string;
    uncertain: boolean;
    sources: { title: string; subtitle?: string | null; source_url: string }[];
    tool_calls: {
      id: string;
      name: string;
      arguments: unknown;
      round: number;
      status: string;
      output?: unknown;
      error?: string;
    }[];
    activity: { id: string; name: string; status: string; summary?: string }[];
    feedback: {
      reaction: 'upvote' | 'downvote';
      comment: Record<string, unknown> | null;
      at: string;
      voter_key: string;
    }[];
  }[];
}
export interface AuditEntry {
  id: number;
  at: string;
  actor: string;
  action: string;
  project_id: string | null;
  target: string | null;
  detail: Record<string, unknown> | null;
  address: string | null;
}
export interface InstallInfo {
  service_url: string;
  widget: { version: string; file: string; integrity: string } | null;
}

/** `api/` beside any console page: every page sits one level under /console/. */
export const apiBase = () => new URL('api/', new URL('.', location.href)).href;

export class ConsoleApi {
  csrf = '';
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
    const s = await this.call<{ username: string | null; csrf_token?: string }>('GET', 'session');
    if (s.username === null) return null;
    this.csrf = s.csrf_token ?? '';
    return { username: s.username };
  }

  async signIn(username: string, password: string): Promise<{ username: string }> {
    const s = await this.call<{ username: string; csrf_token: string }>('POST', 'session', {
      body: { username, password },
      quiet401: true,
    });
    this.csrf = s.csrf_token;
    return s;
  }

  signOut = () => this.call<void>('DELETE', 'session');
  projects = () => this.call<{ projects: Project[] }>('GET', 'projects').then((r) => r.projects);
  createProject = (name: string) => this.call<Project>('POST', 'projects', { body: { name } });
  renameProject = (id: string, name: string) =>
    this.call<Project>('PATCH', `projects/${enc(id)}`, { body: { name } });
  deleteProject = (id: string) =>
    this.call<void>('DELETE', `projects/${enc(id)}`, { query: { confirm: id } });
  createIntegration = (projectId: string, name: string) =>
    this.call<Integration>('POST', `projects/${enc(projectId)}/integrations`, { body: { name } });
  updateIntegration = (projectId: string, id: string, patch: { name?: string; allowed_origins?: string[] }) =>
    this.call<Integration>('PATCH', `projects/${enc(projectId)}/integrations/${enc(id)}`, { body: patch });
  deleteIntegration = (projectId: string, id: string) =>
    this.call<void>('DELETE', `projects/${enc(projectId)}/integrations/${enc(id)}`);
  keys = (projectId: string) =>
    this.call<{ keys: ApiKey[] }>('GET', `projects/${enc(projectId)}/keys`).then((r) => r.keys);
  createKey = (projectId: string, name: string) =>
    this.call<ApiKey & { key: string }>('POST', `projects/${enc(projectId)}/keys`, { body: { name } });
  rotateKey = (projectId: string, id: string, overlapSeconds: number) =>
    this.call<ApiKey & { key: string; replaced: ApiKey }>(
      'POST',
      `projects/${enc(projectId)}/keys/${enc(id)}/rotate`,
      {
        body: { overlap_seconds: overlapSeconds },
      },
    );
  revokeKey = (projectId: string, id: string) =>
    this.call<ApiKey>('DELETE', `projects/${enc(projectId)}/keys/${enc(id)}`);
  activity = (projectId: string, query: Record<string, string | undefined>) =>
    this.call<Activity>('GET', `projects/${enc(projectId)}/activity`, { query });
  activityCsvUrl = (projectId: string, query: Record<string, string | undefined>) =>
    this.url(`projects/${enc(projectId)}/activity`, { ...query, format: 'csv' });
  conversations = (projectId: string, query: Record<string, string | undefined>) =>
    this.call<{ threads: ThreadSummary[]; next_cursor: string | null }>(
      'GET',
      `projects/${enc(projectId)}/conversations`,
      { query },
    );
  conversation = (projectId: string, id: string) =>
    this.call<ThreadDetail>('GET', `projects/${enc(projectId)}/conversations/${enc(id)}`);
  audit = (before?: number) =>
    this.call<{ entries: AuditEntry[]; next_before: number | null }>('GET', 'audit', {
      query: { before: before?.toString() },
    });
  install = () => this.call<InstallInfo>('GET', 'install');
}

const enc = encodeURIComponent;
