import type { Log } from '../kernel/log.js';
import { type EndedOrphan, LOST_ANSWER } from '../storage/types.js';

/** Which answer failed, to find it in the console: ids and a code, never the owner, the question or a key. */
export interface FailedAnswer {
  project: string;
  thread: string;
  answer: string;
  code: string;
}

/** Told of each failed answer once, by whoever stored its end (the project's webhooks hear of it, decision 613). */
export type FailedHook = (failed: FailedAnswer) => void;

/**
 * The one line every failed answer writes (decision 513): `agent_failed` when its agent threw
 * (`extra`: the error's name, and an AgentError's hint), `answer_failed` when the service ended
 * it (a guard, a shutdown, an instance lost), each with the same ids and the stored code.
 */
export function logFailedAnswer(
  log: Log,
  failed: FailedAnswer,
  extra: Record<string, string> | null = null,
): void {
  log({ level: 'warn', msg: extra ? 'agent_failed' : 'answer_failed', ...failed, ...extra });
}

/** Answers another part of the fleet ended (the reaper, a reattach, the maintenance): a line for each lost one. */
export function logLostAnswers(log: Log, ended: readonly EndedOrphan[], failed?: FailedHook): void {
  for (const { id, threadId, projectId, status } of ended)
    if (status === 'error') {
      const lost = { project: projectId, thread: threadId, answer: id, code: LOST_ANSWER.code };
      logFailedAnswer(log, lost);
      failed?.(lost);
    }
}
