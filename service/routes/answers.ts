import { encodeRecord } from '../../contract/records.js';
import { snapshot, waitExpired } from '../answers/replay.js';
import { type RequestInfo, type ServiceContext, requireProject, requireSession } from '../http/context.js';
import { STREAM_HEADERS, noContent } from '../http/responses.js';
import { visibleAnswer } from './visibility.js';

/** GET …/answers/{id}/stream/: replays what the answer has, then follows it live (§9). */
export async function reattach(ctx: ServiceContext, request: Request, info: RequestInfo, projectId: string, answerId: string): Promise<Response> {
  const session = await requireSession(ctx, request, await requireProject(ctx, projectId), info);
  const { message, thread } = await visibleAnswer(ctx, session, answerId);
  const live = ctx.answers.get(answerId);
  if (live) return ctx.answers.stream(live, true);
  const records = [encodeRecord('stream_start', { thread_id: thread.id, question_answer_id: message.id }), ...snapshot(message)];
  const pending = message.toolCalls.filter((c) => c.status === 'pending');
  if (message.status === 'error') records.push(encodeRecord('error', { reason: 'The agent could not finish this answer.' }, true));
  else if (message.status === 'streaming' && pending.length && !waitExpired(message, ctx.clock.now())) {
    records.push(encodeRecord('tool_calls', { tool_calls: pending.map(({ id, name, arguments: args }) => ({ id, name, arguments: args })) }, true));
  } else if (message.status === 'streaming' && !pending.length) {
    records.push(encodeRecord('error', { reason: 'This answer is no longer being generated.' }, true));
  } else records.push(encodeRecord('identifiers', { thread_id: thread.id, question_answer_id: message.id }, true));
  return new Response(records.join(''), { headers: STREAM_HEADERS });
}

/** POST …/answers/{id}/cancel/: stops generation, keeps the text as stopped; idempotent (§9). */
export async function cancel(ctx: ServiceContext, request: Request, info: RequestInfo, projectId: string, answerId: string): Promise<Response> {
  const session = await requireSession(ctx, request, await requireProject(ctx, projectId), info);
  const { message } = await visibleAnswer(ctx, session, answerId);
  const live = ctx.answers.cancel(answerId);
  if (live) await live;
  else if (message.status === 'streaming' && message.toolCalls.some((c) => c.status === 'pending')) {
    await ctx.storage.updateMessage(answerId, { status: 'stopped', updatedAt: ctx.clock.now() });
  }
  return noContent();
}
