/**
 * What a notification says (decision 612): one JSON body that Slack, Mattermost and Discord
 * incoming webhooks post as it is (`text`, and `content` for Discord), and that a program reads
 * by its fields. Visitors' words are bounded, and in the line people read they cannot mention
 * anyone or make a link; the owner is never named.
 */
import type { NotificationEvent } from '../storage/notification-records.js';

/** Each excerpt of visitors' or agents' words in the fields programs read. */
const EXCERPT_CHARS = 1_000;
/** Each quote in the line people read: the whole line stays far below Discord's 2,000. */
const QUOTE_CHARS = 300;

export interface NotificationFacts {
  event: NotificationEvent | 'test';
  projectId: string;
  projectName: string;
  threadId: string | null;
  /** The answer voted down or failed. */
  answerId?: string;
  at: number;
  question?: string;
  answer?: string;
  /** A downvote's reasons (`incorrect`, `irrelevant`, `unaddressed`) and words. */
  reasons?: string[];
  comment?: string | null;
  failureCode?: string;
  /** The failure's words, as the console shows them (decision 703). */
  failureMessage?: string;
  /** The conversation in the console, when the service knows its public URL. */
  link: string | null;
}

const excerpt = (text: string | undefined, max: number) => {
  if (text === undefined) return undefined;
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
};

/**
 * A visitor's words as the line people read quotes them: no `<…>` (Slack's links and mentions),
 * no `@everyone` (Discord's and Mattermost's mentions), no code fence closing the quote.
 */
export const quote = (text: string | undefined) =>
  `“${(excerpt(text, QUOTE_CHARS) ?? '')
    .replace(/</g, '‹')
    .replace(/>/g, '›')
    .replace(/@/g, '@\u200b')
    .replace(/`/g, 'ʼ')}”`;

const HEADLINES: Record<NotificationFacts['event'], (f: NotificationFacts) => string> = {
  handoff: (f) => `A visitor asked for a person (${f.projectName}).`,
  downvote: (f) =>
    `An answer was voted not helpful (${f.projectName})${f.reasons?.length ? `: ${f.reasons.join(', ')}` : ''}.`,
  answer_failed: (f) =>
    `An answer failed (${f.projectName}): ${f.failureMessage ?? `${f.failureCode ?? 'unknown'}.`}`,
  test: (f) => `A test from agent-chat: notifications of ${f.projectName} reach this channel.`,
};

/** The line people read: what happened, the question, the visitor's words, the link. */
function notificationText(f: NotificationFacts): string {
  const lines = [HEADLINES[f.event](f)];
  if (f.question !== undefined) lines.push(`Question: ${quote(f.question)}`);
  if (f.comment) lines.push(`The visitor wrote: ${quote(f.comment)}`);
  if (f.link) lines.push(f.link);
  return lines.join('\n');
}

/** The body of one notification, as JSON text. */
export function notificationBody(f: NotificationFacts): string {
  const text = notificationText(f);
  return JSON.stringify({
    text,
    content: text,
    // Discord: the line mentions no one, whatever it holds.
    allowed_mentions: { parse: [] },
    event: f.event,
    project_id: f.projectId,
    thread_id: f.threadId,
    ...(f.answerId && { answer_id: f.answerId }),
    at: new Date(f.at).toISOString(),
    url: f.link,
    ...(f.question !== undefined && { question: excerpt(f.question, EXCERPT_CHARS) }),
    ...(f.answer !== undefined && { answer: excerpt(f.answer, EXCERPT_CHARS) }),
    ...(f.reasons && { reasons: f.reasons }),
    ...(f.comment !== undefined && {
      comment: f.comment === null ? null : excerpt(f.comment, EXCERPT_CHARS),
    }),
    ...(f.failureCode && { failure_code: f.failureCode }),
    ...(f.failureMessage && { failure_message: f.failureMessage }),
  });
}
