/**
 * The chat call's Idempotency-Key (decision 453): a question sent again with its key (a Retry, a
 * resend after a reload, a lost response) gets the answer the first one began, streamed as a
 * reattach does (§9), never a second answer.
 */
import { IDEMPOTENCY_KEY, IDEMPOTENCY_WINDOW_MS } from '../../contract/limits.js';
import { IDEMPOTENCY_KEY_HEADER } from '../../contract/paths.js';
import { HttpError, badRequest } from '../http/errors.js';
import { STREAM_HEADERS } from '../http/responses.js';
import { hashToken } from '../kernel/tokens.js';
import type { AskKey, SessionRecord } from '../storage/types.js';
import type { ServiceContext } from './context.js';
import { visibleAnswer } from './visibility.js';

/** The key's record in the ledger, the answer it names in the conversations. */
type AskContext = ServiceContext<'conversations' | 'ledger'>;

/** What a question asks, as far as its key must ask the same. */
interface Question {
  integrationId: string;
  threadId: string | null;
  message: string;
  attachments: string[];
}

/**
 * The request's key where it is unique: per project and owner, or, for sessions without owner,
 * in one scope of the project where the key itself is the capability, as a thread id is
 * (decision 7), so that a visitor's resend after a reload (a new session) still finds its
 * question. Undefined without the header: the call behaves as it always did.
 */
export async function askKeyOf(
  request: Request,
  session: SessionRecord,
  question: Question,
): Promise<AskKey | undefined> {
  const header = request.headers.get(IDEMPOTENCY_KEY_HEADER);
  if (header === null) return undefined;
  // The draft writes the key as a structured-field string (quoted); most clients send it bare.
  const key = header.replace(/^"(.*)"$/, '$1');
  if (!IDEMPOTENCY_KEY.test(key))
    throw badRequest(`${IDEMPOTENCY_KEY_HEADER} must be 16 to 255 visible ASCII characters.`);
  const { integrationId, threadId, message, attachments } = question;
  return {
    projectId: session.projectId,
    scope: session.owner ?? '',
    key,
    // SHA-256, as a token's: the same key must ask the same question in the same thread.
    fingerprint: await hashToken(JSON.stringify([integrationId, threadId, message, attachments])),
  };
}

/**
 * The answer the key's question began, streamed from its start (§9's reattach), or undefined
 * when the key asked nothing within the window. A key sent with another question is refused
 * (422, as the IETF draft has it): answering it would show an answer to something else.
 */
export async function answerAsked(ctx: AskContext, session: SessionRecord, ask: AskKey) {
  const found = await ctx.storage.ledger.findAsk(ask, ctx.clock.now() - IDEMPOTENCY_WINDOW_MS);
  if (!found) return undefined;
  if (found.fingerprint !== ask.fingerprint)
    throw new HttpError(
      422,
      'idempotency_key_reused',
      `This ${IDEMPOTENCY_KEY_HEADER} was sent with another question or thread: send a new key with each new question.`,
    );
  const { message, thread } = await visibleAnswer(ctx, session, found.answerId);
  const records = await ctx.answers.reattach(message, thread);
  return records.response({ ...STREAM_HEADERS, 'Idempotent-Replayed': 'true' });
}
