/** The console's pages: one level under /console/, the project and page state in the query. */

export const PAGES = [
  { id: 'activity', label: 'Activity' },
  { id: 'conversations', label: 'Conversations' },
  { id: 'integrations', label: 'Integrations' },
  { id: 'keys', label: 'API keys' },
  { id: 'sources', label: 'Sources' },
  { id: 'notifications', label: 'Notifications' },
  { id: 'admins', label: 'Admins' },
  { id: 'audit', label: 'Audit log' },
] as const;

export type PageId = (typeof PAGES)[number]['id'];

/** The pages only the admin role reads (decision 718); a viewer's navigation leaves them out. */
export const ADMIN_PAGES: ReadonlySet<PageId> = new Set<PageId>(['keys', 'audit']);

export interface Route {
  page: PageId;
  /** The selected project (`?project=`). */
  project: string | null;
  /** Everything else in the query, for the page (filters, the open thread, the selected integration). */
  params: URLSearchParams;
}

export function parseRoute(href: string): Route {
  const url = new URL(href);
  const last = url.pathname.replace(/\/+$/, '').split('/').pop() ?? '';
  const page = PAGES.find((p) => p.id === last)?.id ?? 'activity';
  const params = new URLSearchParams(url.search);
  const project = params.get('project');
  params.delete('project');
  return { page, project, params };
}

/** The page's URL relative to the console's root (`keys?project=p`), so the base path never matters. */
export function routeHref(
  page: PageId,
  project: string | null,
  params: Record<string, string | undefined> | URLSearchParams = {},
): string {
  const query = new URLSearchParams();
  if (project) query.set('project', project);
  const entries = params instanceof URLSearchParams ? [...params] : Object.entries(params);
  for (const [key, value] of entries) if (value) query.set(key, value);
  const search = query.toString();
  return `${page}${search ? `?${search}` : ''}`;
}
