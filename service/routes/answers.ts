import { type RequestInfo, type ServiceContext, requireProject, requireSession } from './context.js';
import { STREAM_HEADERS, noContent } from '../http/responses.js';
import { visibleAnswer } from './visibility.js';
import { whileSessionHolds } from './stream-guard.js';

/** The answer, found in the conversations; the session (directory) and its rate window (rates). */
type AnswersContext = ServiceContext<'conversations' | 'directory' | 'rates'>;

/** GET …/answers/{id}/stream/: replays what the answer has, then follows it live, on whichever instance generates it (§9). */
export async function reattach(
  ctx: AnswersContext,
  request: Request,
  info: RequestInfo,
  projectId: string,
  answerId: string,
): Promise<Response> {
  const session = await requireSession(ctx, request, await requireProject(ctx, projectId), info);
  const { message, thread } = await visibleAnswer(ctx, session, answerId);
  return whileSessionHolds(
    ctx,
    session,
    (await ctx.answers.reattach(message, thread)).response(STREAM_HEADERS),
  );
}

/** POST …/answers/{id}/cancel/: stops generation wherever it runs, keeps the text as stopped; idempotent (§9). */
export async function cancel(
  ctx: AnswersContext,
  request: Request,
  info: RequestInfo,
  projectId: string,
  answerId: string,
): Promise<Response> {
  const session = await requireSession(ctx, request, await requireProject(ctx, projectId), info);
  const { message } = await visibleAnswer(ctx, session, answerId);
  await ctx.answers.cancel(message);
  return noContent();
}
