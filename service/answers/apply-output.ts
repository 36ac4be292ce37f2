import { MAX_ANSWER_CHARS, MAX_TOOL_ROUNDS } from '../../contract/limits.js';
import { encodeRecord } from '../../contract/records.js';
import { type AgentOutput, AgentError } from '../agents/types.js';
import {
  type AnswerFailure,
  FAILURE_MESSAGE_CHARS,
  LOST_ANSWER,
  type MessageRecord,
  type StoredStatus,
  type TokenUsage,
} from '../storage/types.js';
import type { StopReason } from './live-answer.js';

/** One run of an answer (the first, or one after tool results) as the agent's outputs shape it. */
export interface AnswerRun {
  /** The answer as it is stored when the run ends. */
  message: MessageRecord;
  /** What the model reported for this run; the message keeps the sum over the answer's runs. */
  runUsage: TokenUsage | null;
  /** Tool rounds the answer had before this run. */
  rounds: number;
}

/** How a run ends: the status stored, the last record of the stream, and why it failed (`error` only). */
export interface RunEnd {
  status: StoredStatus;
  record: string;
  failure?: AnswerFailure;
}

/** What one output does: the run after it, and what goes to the stream. */
export interface Applied {
  run: AnswerRun;
  /** A record to send, or null (text goes as `text`; usage goes nowhere). */
  record: string | null;
  /** Answer text to send; consecutive pieces are framed as one partial_answer per tick. */
  text: string;
  /** The output ends the run. */
  end: RunEnd | null;
}

/**
 * An end as an error: `reason` for the visitor, `failure` for the console (decision 496), kept
 * with the reason so that a reattach ends as this stream did (decision 524).
 */
const errorEnd = (reason: string, failure: Omit<AnswerFailure, 'reason'>): RunEnd => ({
  status: 'error',
  record: encodeRecord('error', { reason }, true),
  failure: { ...failure, reason },
});

/**
 * The most tokens one run may report: usage past 2⁶³ failed the answer's end write (the store
 * kept it `streaming` with the owner's slot), and no model call spends two billion tokens.
 */
const MAX_RUN_TOKENS = 2 ** 31 - 1;
const tokens = (n: number) => (Number.isFinite(n) && n > 0 ? Math.min(Math.round(n), MAX_RUN_TOKENS) : 0);

const add = (a: TokenUsage | null | undefined, promptTokens: number, completionTokens: number) => ({
  promptTokens: (a?.promptTokens ?? 0) + tokens(promptTokens),
  completionTokens: (a?.completionTokens ?? 0) + tokens(completionTokens),
});

/**
 * Pure reducer from the agent's outputs to the answer: returns a new run (and message) on every
 * change, never touching the one it was given. The service's twin of the widget's
 * `applyStreamEvent` (src/chat/answer-accumulator.ts), which reads these records back.
 */
export function applyOutput(run: AnswerRun, given: AgentOutput): Applied {
  const { message } = run;
  const output = given.type === 'text' ? given : withoutNul(given);
  const next = (changes: Partial<MessageRecord>, record: string | null, text = ''): Applied => ({
    run: { ...run, message: { ...message, ...changes } },
    record,
    text,
    end: null,
  });
  switch (output.type) {
    case 'text':
      return grown(run, output.text);
    case 'sources':
      return next(
        { sources: [...message.sources, ...output.sources] },
        encodeRecord('relevant_sources', { relevant_sources: output.sources }),
      );
    case 'activity': {
      const activity = [...message.activity];
      const at = activity.findIndex((s) => s.id === output.step.id);
      if (at >= 0) activity[at] = output.step;
      else activity.push(output.step);
      return next({ activity }, encodeRecord('agent_activity_update', output.step));
    }
    case 'usage': {
      const { promptTokens, completionTokens } = output;
      return {
        run: {
          ...run,
          message: { ...message, usage: add(message.usage, promptTokens, completionTokens) },
          runUsage: add(run.runUsage, promptTokens, completionTokens),
        },
        record: null,
        text: '',
        end: null,
      };
    }
    case 'uncertain':
      return next({ uncertain: true }, encodeRecord('metadata', { is_uncertain: true }));
    case 'tool_calls': {
      const round = run.rounds + 1;
      if (round > MAX_TOOL_ROUNDS)
        return {
          run,
          record: null,
          text: '',
          end: errorEnd(`The agent asked for more than ${MAX_TOOL_ROUNDS} tool rounds.`, {
            code: 'answer_tool_rounds',
            message: `The agent asked the page for tools more than ${MAX_TOOL_ROUNDS} times in one answer, and the answer was ended.`,
          }),
        };
      const calls = output.calls.map((c) => ({ ...c, round, status: 'pending' as const }));
      // Still `streaming`: the answer goes on when the results come (§7).
      return {
        ...next({ toolCalls: [...message.toolCalls, ...calls] }, null),
        end: { status: 'streaming', record: encodeRecord('tool_calls', { tool_calls: output.calls }, true) },
      };
    }
  }
}

/**
 * A value with every NUL character taken out of its strings and keys: PostgreSQL's text and
 * jsonb hold none, and one in a tool call's id or arguments, an activity's words or a source's
 * title failed the statement that stored the answer (decision 759). Text is cleaned as it
 * grows (`grown`); the rest of an agent's output is rare and small, so cleaned whole.
 */
function withoutNul<T>(value: T): T {
  if (typeof value === 'string') return (value.includes('\0') ? value.replaceAll('\0', '') : value) as T;
  if (Array.isArray(value)) return value.map(withoutNul) as T;
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [withoutNul(k), withoutNul(v)])) as T;
}

/**
 * More text: the hot path (see `withText`). Past MAX_ANSWER_CHARS the answer ends as an error
 * with the text that fits: an answer of 25-30 MB was stored and replayed whole.
 */
function grown(run: AnswerRun, written: string): Applied {
  // PostgreSQL's text holds no NUL: one from the model was streamed, then the answer was not
  // saved (decision 759). Dropped here, it is neither sent nor stored.
  const text = written.includes('\0') ? written.replaceAll('\0', '') : written;
  const room = MAX_ANSWER_CHARS - run.message.content.length;
  // Cut between characters, never inside a surrogate pair.
  const kept = text.length <= room ? text : text.slice(0, Math.max(0, room)).replace(/[\ud800-\udbff]$/, '');
  return {
    run: { message: withText(run.message, kept), runUsage: run.runUsage, rounds: run.rounds },
    record: null,
    text: kept,
    end:
      kept === text
        ? null
        : errorEnd('The answer was too long and was ended.', {
            code: 'answer_too_long',
            message: `The answer passed ${MAX_ANSWER_CHARS.toLocaleString('en')} characters and was ended with the text that fits.`,
          }),
  };
}

/**
 * The answer with more text, written out field by field: text comes once per token, thousands of
 * times a second at load, and V8 builds this literal several times faster than a spread
 * (35 against 250-500 ns in Node 20). The mapped type makes a new field of MessageRecord, even an
 * optional one, a type error here until it is copied.
 */
function withText(m: MessageRecord, text: string): MessageRecord {
  const copy: { [K in keyof Required<MessageRecord>]: MessageRecord[K] } = {
    id: m.id,
    role: m.role,
    content: m.content + text,
    sources: m.sources,
    createdAt: m.createdAt,
    updatedAt: m.updatedAt,
    status: m.status,
    toolCalls: m.toolCalls,
    activity: m.activity,
    uncertain: m.uncertain,
    usage: m.usage,
    attachments: m.attachments,
    failure: m.failure,
  };
  return copy;
}

/** The record that ends an answer well: its ids. */
export const identifiers = (threadId: string, answerId: string) =>
  encodeRecord('identifiers', { thread_id: threadId, question_answer_id: answerId }, true);

/** The agent's outputs ran out: complete, unless there is nothing to show for it. */
export function quietEnd(message: MessageRecord, threadId: string): RunEnd {
  // An agent that ends quietly with nothing to show has failed, whatever it says.
  if (!message.content.trim() && !message.toolCalls.length)
    return errorEnd('The agent ended without an answer.', {
      code: 'answer_empty',
      message: 'The agent ended without a word and without a tool call.',
    });
  return { status: 'complete', record: identifiers(threadId, message.id) };
}

/**
 * A stopped answer keeps its text as stopped. One the visitor did not stop ends with an error
 * (its text kept): past its time limit, or cut by a shutdown, which `identifiers` would have
 * shown them as a whole answer (decision 447).
 */
export function stoppedEnd(reason: StopReason | null, threadId: string, answerId: string): RunEnd {
  if (reason === 'time_limit')
    return errorEnd('The answer took too long and was ended.', {
      code: 'answer_time_limit',
      message:
        "The answer ran past the service's limit for one answer (maxAnswerMs, 5 minutes unless set) and was ended: the model was slow or stuck.",
    });
  if (reason === 'shutdown')
    return errorEnd('The service restarted while answering. Ask again.', {
      code: 'service_shutdown',
      message: 'The service shut down (a deploy or a restart) while this answer was generating.',
    });
  return { status: 'stopped', record: identifiers(threadId, answerId) };
}

/** Another instance ended the answer (this one's lease ran out): the stored end stands, lost. */
export const takenOver = () => encodeRecord('error', { reason: LOST_ANSWER.reason }, true);

/** A code as it is kept: a word of letters, digits, `_`, `.` and `-`, else the fallback. */
const word = (value: string, fallback: string) => (/^[\w.-]{1,64}$/.test(value) ? value : fallback);

/** Words kept as a sentence: its first letter capital, a full stop at its end, and bounded. */
function sentence(text: string): string {
  const trimmed = text.trim().replace(/\s+/g, ' ');
  const whole = /[.!?]$/.test(trimmed) ? trimmed : `${trimmed}.`;
  const capital = whole.charAt(0).toUpperCase() + whole.slice(1);
  return capital.length <= FAILURE_MESSAGE_CHARS
    ? capital
    : `${capital.slice(0, FAILURE_MESSAGE_CHARS - 1)}…`;
}

/**
 * The agent threw: the end the visitor sees, why for the console, and what the `agent_failed`
 * log line adds to the answer's ids and stored code (decision 513). An AgentError's reason and
 * hint are the agent's own words (the hint, or else the reason, is what the console shows); any
 * other error gives its name only, since a model's error message may quote the conversation.
 */
export function agentFailure(error: unknown): {
  end: RunEnd;
  log: Record<string, string>;
} {
  if (error instanceof AgentError)
    return {
      end: errorEnd(error.reason, {
        code: word(error.code, 'agent_error'),
        message: sentence(error.hint || error.reason),
      }),
      log: { error: error.name, ...(error.hint && { hint: error.hint }) },
    };
  const name = error instanceof Error ? error.name : typeof error;
  return {
    end: errorEnd('The agent could not finish this answer.', {
      code: 'agent_threw',
      message: `The agent threw ${word(name, 'an error')}; its message is not kept, as it may quote the conversation. The agent's own log may say more.`,
    }),
    log: { error: name },
  };
}
