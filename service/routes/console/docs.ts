import type {
  ConsoleCrawlProgress,
  ConsoleCrawlRun,
  ConsoleDocHits,
  ConsoleDocSource,
  ConsoleDocSources,
  ConsoleDocStale,
  ConsoleDocSynonyms,
} from '../../../contract/console.js';
import { isRecord, readJsonBody } from '../../http/body.js';
import { isoMicros, isoMicrosOrNull as time } from '../../kernel/clock.js';
import type { RequestInfo, ServiceContext } from '../context.js';
import { HttpError, badRequest, notFound } from '../../http/errors.js';
import { json, noContent } from '../../http/responses.js';
import { DocsInputError, type DocsLibrary } from '../../docs/library.js';
import { excerpt } from '../../docs/sections.js';
import { referredTo } from '../../docs/ranking.js';
import type { CrawlRunRecord, DocCrawlProgress, DocSourceSummary } from '../../storage/types.js';
import { audit } from './auth.js';
import { adminProject } from './projects.js';

/**
 * The Sources page (decisions 296, 298): a project's documentation, the project (directory) and
 * the admin changing it (accounts). A source is reached only through its project's path.
 */
type DocsContext = ServiceContext<'accounts' | 'directory'>;

/** Failures a source's entry carries: the page lists them, the log keeps the rest. */
const MAX_FAILURES = 100;

function library(ctx: DocsContext): DocsLibrary {
  if (!ctx.docs)
    throw new HttpError(404, 'not_found', 'This service answers without a documentation library.');
  return ctx.docs;
}

/** The library's work, an input it refuses (`DocsInputError`) answered 400 in its own words. */
async function refusedAs400<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    if (error instanceof DocsInputError) throw badRequest(error.message);
    throw error;
  }
}

const runJson = (run: CrawlRunRecord): ConsoleCrawlRun => ({
  started_at: isoMicros(run.startedAt),
  finished_at: isoMicros(run.finishedAt),
  complete: run.complete,
  truncated: run.truncated,
  pages_new: run.pagesNew,
  pages_changed: run.pagesChanged,
  pages_unchanged: run.pagesUnchanged,
  pages_removed: run.pagesRemoved,
  pages_excluded: run.pagesExcluded,
  pages_disallowed: run.pagesDisallowed,
  pages_spared: run.pagesSpared,
  lastmod_lie_at: run.lastmodLieAt == null ? null : isoMicros(run.lastmodLieAt),
  failures: run.failures.slice(0, MAX_FAILURES),
  failure_count: run.failures.length,
});

const progressJson = (crawl: DocCrawlProgress, now: number): ConsoleCrawlProgress => ({
  phase: crawl.phase,
  pages_read: crawl.pagesRead,
  pages_failed: crawl.pagesFailed,
  started_at: isoMicros(crawl.startedAt),
  elapsed_ms: Math.max(0, now - crawl.startedAt),
  quiet_ms: Math.max(0, now - crawl.updatedAt),
});

/** A source as the Sources page shows it, with what it may want to exclude and its crawl under way. */
const sourceJson = async (
  ctx: DocsContext,
  docs: DocsLibrary,
  source: DocSourceSummary,
): Promise<ConsoleDocSource> => ({
  id: source.id,
  location: source.location,
  kind: source.kind,
  public_url: source.publicUrl,
  exclude: source.exclude,
  created_at: isoMicros(source.createdAt),
  last_crawl_at: time(source.lastCrawlAt),
  next_crawl_at: isoMicros(source.nextCrawlAt),
  pages: source.pages,
  sections: source.sections,
  last_run: source.lastRun && runJson(source.lastRun),
  suggested_exclusions: await docs.suggestedExclusions(source),
  crawl: source.crawl && progressJson(source.crawl, ctx.clock.now()),
});

/** GET /console/api/projects/{id}/docs/sources: the project's sources with what they hold, their last crawl and failures. */
export async function listSources(
  ctx: DocsContext,
  request: Request,
  _info: RequestInfo,
  projectId: string,
): Promise<Response> {
  const { project } = await adminProject(ctx, request, projectId);
  const docs = ctx.docs;
  const body: ConsoleDocSources = docs
    ? {
        enabled: true,
        sources: await Promise.all((await docs.sources(project.id)).map((s) => sourceJson(ctx, docs, s))),
        synonyms: await docs.synonyms(project.id),
      }
    : { enabled: false, sources: [], synonyms: [] };
  return json(body);
}

/**
 * A body's `exclude`: a list of strings (checked by the library), else a 400; absent means none
 * where it is `optional` (a new source), and is the error where it is the whole change.
 */
function excludeOf(body: unknown, optional: boolean): unknown[] {
  const exclude = isRecord(body) ? body.exclude : undefined;
  if (optional && (exclude === undefined || exclude === null)) return [];
  if (!Array.isArray(exclude)) throw badRequest('exclude is a list of path patterns, like ["/blog/"].');
  return exclude;
}

/** POST /console/api/projects/{id}/docs/sources {location, public_url?, exclude?}: a website or a folder, crawled at once. */
export async function addSource(
  ctx: DocsContext,
  request: Request,
  info: RequestInfo,
  projectId: string,
): Promise<Response> {
  const { admin, project } = await adminProject(ctx, request, projectId);
  const docs = library(ctx);
  const body = await readJsonBody(request);
  const location = isRecord(body) && typeof body.location === 'string' ? body.location : '';
  const publicUrl =
    isRecord(body) && typeof body.public_url === 'string' && body.public_url ? body.public_url : undefined;
  const source = await refusedAs400(docs.addSource(project.id, location, publicUrl, excludeOf(body, true)));
  await audit(ctx, info, admin.username, 'docs.add', project.id, source.id, {
    location: source.location,
    exclude: source.exclude,
  });
  void docs.tick().catch(() => {});
  const summary = (await docs.sources(project.id)).find((s) => s.id === source.id);
  return json(summary ? await sourceJson(ctx, docs, summary) : { id: source.id }, 201);
}

/** DELETE /console/api/projects/{id}/docs/sources/{source}: the source with its pages and sections. */
export async function removeSource(
  ctx: DocsContext,
  request: Request,
  info: RequestInfo,
  projectId: string,
  id: string,
): Promise<Response> {
  const { admin, project } = await adminProject(ctx, request, projectId);
  if (!(await library(ctx).removeSource(project.id, id))) throw notFound('No such source.');
  await audit(ctx, info, admin.username, 'docs.remove', project.id, id);
  return noContent();
}

/** PATCH /console/api/projects/{id}/docs/sources/{source} {exclude}: new exclude patterns, crawled at once. */
export async function changeSource(
  ctx: DocsContext,
  request: Request,
  info: RequestInfo,
  projectId: string,
  id: string,
): Promise<Response> {
  const { admin, project } = await adminProject(ctx, request, projectId);
  const docs = library(ctx);
  const exclude = excludeOf(await readJsonBody(request), false);
  if (!(await refusedAs400(docs.setExclusions(project.id, id, exclude)))) throw notFound('No such source.');
  const summary = (await docs.sources(project.id)).find((s) => s.id === id)!;
  await audit(ctx, info, admin.username, 'docs.exclude', project.id, id, {
    exclude: summary.exclude,
  });
  return json(await sourceJson(ctx, docs, summary));
}

/** POST /console/api/projects/{id}/docs/sources/{source}/crawl: "Re-crawl now". */
export async function recrawlSource(
  ctx: DocsContext,
  request: Request,
  info: RequestInfo,
  projectId: string,
  id: string,
): Promise<Response> {
  const { admin, project } = await adminProject(ctx, request, projectId);
  if (!(await library(ctx).recrawlNow(project.id, id))) throw notFound('No such source.');
  await audit(ctx, info, admin.username, 'docs.crawl', project.id, id);
  return json({ scheduled: true }, 202);
}

/** GET /console/api/projects/{id}/docs/search?q=: the ranked sections of the project's docs a chat would get. */
export async function searchDocs(
  ctx: DocsContext,
  request: Request,
  _info: RequestInfo,
  projectId: string,
): Promise<Response> {
  const { project } = await adminProject(ctx, request, projectId);
  const question = (new URL(request.url).searchParams.get('q') ?? '').trim();
  if (!question) throw badRequest('q is the question to search for.');
  if (question.length > 2_000) throw badRequest('q is longer than 2,000 characters.');
  // A conversation's follow-up is searched after the question before it, as its chat was (decision 450).
  const earlier = (new URL(request.url).searchParams.get('earlier') ?? '').trim().slice(0, 2_000);
  const docs = library(ctx);
  // The owner checks a change they have just made: the docs as stored now (decision 437), then its words.
  const hits = await docs.project(project.id).searchNow(question, 10, earlier || undefined);
  const also = await docs.expansions(project.id, question);
  return json({
    also,
    earlier: referredTo(question, earlier) ? earlier : null,
    hits: hits.map(({ section, score, match }) => ({
      title: section.title,
      headings: section.headings,
      url: section.url,
      score: Math.round(score * 10_000) / 10_000,
      match: Math.round(match * 100) / 100,
      excerpt: excerpt(section.text),
    })),
  } satisfies ConsoleDocHits);
}

/** Conversations counted at most: each is a walk through its answers' citations (decision 739). */
const STALE_CAP = 1_000;

/**
 * GET /console/api/projects/{id}/docs/stale: how many conversations have an answer citing a
 * page changed or gone since, read once with the page, not with each follow of a crawl.
 */
export async function staleConversations(
  ctx: ServiceContext<'accounts' | 'directory' | 'conversations'>,
  request: Request,
  _info: RequestInfo,
  projectId: string,
): Promise<Response> {
  const { project } = await adminProject(ctx, request, projectId);
  const found = await ctx.storage.conversations.countStaleThreads(project.id, STALE_CAP);
  return json({ conversations: found, at_least: found >= STALE_CAP } satisfies ConsoleDocStale);
}

/** PUT /console/api/projects/{id}/docs/synonyms {synonyms}: the project's synonym groups, replaced whole. */
export async function putSynonyms(
  ctx: DocsContext,
  request: Request,
  info: RequestInfo,
  projectId: string,
): Promise<Response> {
  const { admin, project } = await adminProject(ctx, request, projectId);
  const docs = library(ctx);
  const body = await readJsonBody(request);
  if (!isRecord(body) || !Array.isArray(body.synonyms))
    throw badRequest('synonyms is a list of groups, like [["auto increment", "serial"]].');
  const synonyms = await refusedAs400(docs.setSynonyms(project.id, body.synonyms));
  await audit(ctx, info, admin.username, 'docs.synonyms', project.id, null, { groups: synonyms.length });
  return json({ synonyms } satisfies ConsoleDocSynonyms);
}
