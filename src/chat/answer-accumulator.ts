import type { StreamEvent } from '../api/types.js';
import { errorInfo } from './describe-error.js';
import type { AnswerOutcome, ChatMessage } from './types.js';

/**
 * How a failed answer reads, live (its `error` record) and read back from the history, where the
 * service keeps the status alone (decision 514): the widget's own words, never the record's
 * English reason, with Retry.
 */
export const answerFailed = () => errorInfo('agent_error', 'errorGeneric', true);

/**
 * Pure reducer from stream events to the assistant message. Returns a new object on every
 * change, so renderers can compare by identity.
 */
export function applyStreamEvent(message: ChatMessage, event: StreamEvent): ChatMessage {
  switch (event.type) {
    case 'sources':
      return { ...message, sources: [...message.sources, ...event.sources] };
    case 'activity': {
      const activity = [...(message.activity ?? [])];
      const at = activity.findIndex((a) => a.id === event.activity.id);
      if (at >= 0) activity[at] = event.activity;
      else activity.push(event.activity);
      return { ...message, activity };
    }
    case 'metadata':
      return { ...message, uncertain: event.uncertain };
    case 'delta':
      return event.text ? { ...message, content: message.content + event.text } : message;
    case 'end':
      return {
        ...message,
        status: 'complete',
        questionAnswerId: message.questionAnswerId ?? event.questionAnswerId ?? undefined,
      };
    case 'error':
      return { ...message, status: 'error', error: answerFailed() };
    case 'interrupted':
      return {
        ...message,
        status: 'interrupted',
        error: errorInfo('interrupted', 'errorInterrupted', true),
      };
    default:
      return message;
  }
}

/**
 * The answer stopped by the visitor. One stopped while it waited to reconnect (decisions 567,
 * 587) no longer says it waits: it is the interrupted answer it was.
 */
export function stopAnswer(message: ChatMessage): ChatMessage {
  const cut =
    message.status === 'interrupted'
      ? applyStreamEvent(message, { type: 'interrupted', reason: '' })
      : message;
  return { ...cut, status: 'stopped' };
}

export function outcomeOf(message: ChatMessage): AnswerOutcome {
  if (message.status === 'complete') return 'complete';
  if (message.status === 'stopped') return 'aborted';
  return 'error';
}
