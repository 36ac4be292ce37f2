import type { AgentOutput } from './agent.js';
import { type ServiceContext, requireProject, requireSession } from './context.js';
import { findThread } from './history.js';
import { CORS_HEADERS, HttpError, badRequest, isRecord, randomId, readJsonBody } from './http.js';
import { encodeRecord } from './records.js';
import type { MessageRecord, SessionRecord, ThreadRecord } from './storage.js';

export const MAX_MESSAGE_CHARS = 16_000;
const TITLE_CHARS = 80;

function titleFrom(message: string): string {
  const oneLine = message.replace(/\s+/g, ' ').trim();
  return oneLine.length <= TITLE_CHARS ? oneLine : `${oneLine.slice(0, TITLE_CHARS - 1).trimEnd()}…`;
}

function parseChatBody(body: unknown, integrationIds: string[]) {
  if (!isRecord(body)) throw badRequest('The body must be a JSON object.');
  const { integration_id: integrationId, message, thread_id: threadId } = body;
  if (typeof integrationId !== 'string' || !integrationIds.includes(integrationId)) throw badRequest('integration_id is missing or unknown.');
  if (typeof message !== 'string') throw badRequest('message must be a string.');
  if (message.length > MAX_MESSAGE_CHARS) throw new HttpError(413, 'payload_too_large', `message is longer than ${MAX_MESSAGE_CHARS} characters.`);
  if (!message.trim()) throw badRequest('message is empty.');
  if (threadId !== undefined && threadId !== null && typeof threadId !== 'string') throw badRequest('thread_id must be a string or null.');
  return { integrationId, message, threadId: threadId ?? null };
}

/** POST /agent/v1/projects/{projectId}/agent/chat/: validates, records the question, streams the answer. */
export async function chat(ctx: ServiceContext, request: Request, projectId: string): Promise<Response> {
  const project = requireProject(ctx, projectId);
  const session = await requireSession(ctx, request, project);
  const { integrationId, message, threadId } = parseChatBody(await readJsonBody(request), project.integrationIds);
  const now = ctx.clock.now();
  const activity = { projectId, sessionToken: session.token, owner: session.owner, integrationId };

  const thread = threadId ? await findThread(ctx, session, threadId) : newThread(session, integrationId, message, now);
  if (!threadId) await ctx.storage.recordActivity({ ...activity, kind: 'thread', at: now });
  const history = [...thread.messages];
  thread.messages.push({ id: randomId('msg'), role: 'user', content: message, sources: [], createdAt: now, status: 'complete' });
  thread.updatedAt = now;
  await ctx.storage.putThread(thread);
  await ctx.storage.recordActivity({ ...activity, kind: 'message', at: now });

  const answer: MessageRecord = { id: randomId('msg'), role: 'assistant', content: '', sources: [], createdAt: now, status: 'complete' };
  const stop = new AbortController();
  request.signal.addEventListener('abort', () => stop.abort(), { once: true });
  const outputs = ctx.agent.answer({ message, history, signal: stop.signal })[Symbol.asyncIterator]();

  let saved = false;
  /** Keeps what was produced, whatever the outcome; a thread deleted meanwhile stays deleted. */
  const save = async (status: MessageRecord['status']) => {
    if (saved) return;
    saved = true;
    answer.status = status;
    const latest = await ctx.storage.getThread(thread.id);
    if (!latest) return;
    latest.messages.push(answer);
    latest.updatedAt = ctx.clock.now();
    await ctx.storage.putThread(latest);
    await ctx.storage.recordActivity({ ...activity, kind: 'message', at: latest.updatedAt });
  };

  const stopped = async (controller: ReadableStreamDefaultController<Uint8Array>) => {
    await save('stopped');
    try {
      controller.close();
    } catch {
      // Already closed by cancel(): nothing left to tell the client.
    }
  };

  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(encoder.encode(encodeRecord('stream_start', { thread_id: thread.id })));
    },
    async pull(controller) {
      const send = (text: string) => controller.enqueue(encoder.encode(text));
      if (stop.signal.aborted) return stopped(controller);
      let next: IteratorResult<AgentOutput>;
      try {
        next = await outputs.next();
      } catch {
        if (stop.signal.aborted) return stopped(controller);
        await save('error');
        send(encodeRecord('error', { reason: 'The agent could not finish this answer.' }, true));
        return controller.close();
      }
      if (stop.signal.aborted) return stopped(controller);
      if (next.done) {
        await save('complete');
        send(encodeRecord('identifiers', { thread_id: thread.id, question_answer_id: answer.id }, true));
        return controller.close();
      }
      if (next.value.type === 'sources') {
        answer.sources.push(...next.value.sources);
        send(encodeRecord('relevant_sources', { relevant_sources: next.value.sources }));
      } else {
        answer.content += next.value.text;
        send(encodeRecord('partial_answer', { text: next.value.text }));
      }
    },
    async cancel() {
      // The client went away (Stop, navigation): stop generating and keep the partial answer.
      stop.abort();
      void outputs.return?.();
      await save('stopped');
    },
  });
  return new Response(body, { headers: { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store', ...CORS_HEADERS } });
}

function newThread(session: SessionRecord, integrationId: string, message: string, now: number): ThreadRecord {
  return { id: randomId('th'), projectId: session.projectId, integrationId, owner: session.owner, title: titleFrom(message), createdAt: now, updatedAt: now, messages: [] };
}
