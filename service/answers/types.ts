/**
 * What the routes ask of live answers: the request context holds this interface, not the class.
 * It speaks records, not HTTP: the routes put the record streams it returns into responses.
 */
import type { AgentInput } from '../agents/types.js';
import type { ActivityEvent, MessageRecord, ThreadMeta } from '../storage/types.js';
import type { RecordStream } from './record-stream.js';

export interface StartAnswer {
  thread: ThreadMeta;
  /** The answer, already stored as `streaming` for this instance (beginAnswer or resumeAnswer). */
  message: MessageRecord;
  input: Omit<AgentInput, 'signal'>;
  /** Activity event fields of the caller, for counting the answer when it ends. */
  activity: Omit<ActivityEvent, 'kind' | 'at'>;
}

export interface AnswerRunner {
  /** The instance's id in the fleet: what `beginAnswer` and `resumeAnswer` store as the generator. */
  readonly instanceId: string;
  /** The instance is draining (shutting down): routes start no new answer (503, decision 456). */
  readonly draining: boolean;
  /**
   * Lets a chat in, unless a drain began (null): until the returned call, a drain waits for it as
   * for an answer in flight, so a question let in a moment before the drain is answered, not cut.
   */
  admit(): (() => void) | null;
  /** Starts generating; returns the records for the caller (stream_start first). */
  start(request: StartAnswer): RecordStream;
  /** §9 reattach: the live answer on whichever instance generates it, else what is stored. */
  reattach(message: MessageRecord, thread: ThreadMeta): Promise<RecordStream>;
  /** §9 cancel: stops the answer wherever it generates; resolves once it is stored (or after a bound). */
  cancel(message: MessageRecord): Promise<void>;
  /** A deleted thread's answers stop wherever they generate; not awaited. */
  stopDeleted(answerIds: string[]): void;
  /** Shutdown: answers generating here end as errors, their text kept (447); followed streams end. */
  stopAll(): Promise<void>;
}
