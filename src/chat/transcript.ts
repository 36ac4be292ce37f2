import type { ThreadSummary } from '../api/types.js';
import type { ChatMessage, ConversationSnapshot } from './types.js';

/** The words a transcript is written with, in the widget's language. */
export interface TranscriptLabels {
  title: string;
  you: string;
  assistant: string;
  sources: string;
}

const ENGLISH: TranscriptLabels = {
  title: 'Conversation',
  you: 'You',
  assistant: 'Assistant',
  sources: 'Sources',
};

/** A transcript is worth saving once an answer has words, and not while one streams. */
export const worthSaving = ({ messages, streaming }: ConversationSnapshot): boolean =>
  !streaming && messages.some((m) => m.role === 'assistant' && m.content !== '');

/** The conversation on screen as Markdown, titled after its thread, in the caller's words. */
export function conversationTranscript(
  { threadId, messages }: ConversationSnapshot,
  threads: readonly ThreadSummary[],
  labels: Omit<Partial<TranscriptLabels>, 'title'> = {},
): string {
  const title =
    threads.find((t) => t.id === threadId)?.title ||
    messages.find((m) => m.role === 'user')?.content.slice(0, 80);
  return transcriptMarkdown(messages, { ...labels, ...(title ? { title } : {}) });
}

/** The conversation as Markdown: a heading, then each turn under "You" or "Assistant". */
export function transcriptMarkdown(
  messages: readonly ChatMessage[],
  labels: Partial<TranscriptLabels> = {},
): string {
  const words = { ...ENGLISH, ...labels };
  const turns = messages
    .filter((m) => m.content.trim() || m.role === 'user')
    .map((m) => {
      const who = `**${m.role === 'user' ? words.you : words.assistant}**`;
      const sources = m.sources.length
        ? `\n\n${words.sources}:\n${m.sources.map((s) => `- [${s.title}](${s.source_url})`).join('\n')}`
        : '';
      // A visitor's text is quoted so that their markdown stays their words, not structure.
      const body =
        m.role === 'user'
          ? m.content
              .split('\n')
              .map((line) => `> ${line}`)
              .join('\n')
          : m.content.trim();
      return `${who}\n\n${body}${sources}`;
    });
  return `# ${words.title}\n\n${turns.join('\n\n---\n\n')}\n`;
}

/** A mailto: body stays under what mail clients reliably open; the rest is cut with a note. */
export const MAILTO_BODY_LIMIT = 1800;

/**
 * Where "Talk to a person" goes with the transcript: `mailto:` gets a subject and a body; an
 * `https:` page gets it in the fragment, which browsers never send to a server (so no access
 * log holds it). Anything else is refused (undefined).
 */
export function handoffHref(
  base: string,
  transcript: string,
  subject = 'Conversation with the assistant',
): string | undefined {
  let url: URL;
  try {
    url = new URL(base, typeof location === 'undefined' ? undefined : location.href);
  } catch {
    return undefined;
  }
  if (url.protocol === 'mailto:') {
    const body =
      transcript.length > MAILTO_BODY_LIMIT ? `${transcript.slice(0, MAILTO_BODY_LIMIT)}\n\n[…]` : transcript;
    const join = url.href.includes('?') ? '&' : '?';
    return `${url.href}${join}subject=${encodeURIComponent(subject)}&body=${encodeURIComponent(body)}`;
  }
  if (url.protocol !== 'https:') return undefined;
  url.hash = `transcript=${encodeURIComponent(transcript)}`;
  return url.href;
}

/** Which triggers offer "Talk to a person": `always`, `uncertainty`, `downvote` (space-separated). */
export function handoffTriggers(value: string): Set<'always' | 'uncertainty' | 'downvote'> {
  const known = ['always', 'uncertainty', 'downvote'] as const;
  return new Set(value.split(/\s+/).flatMap((word) => known.filter((k) => k === word)));
}

/** Whether "Talk to a person" shows under `answer` (the last answer): always, or by what the answer got. */
export function offersHandoff(triggers: ReadonlySet<string>, answer: ChatMessage | undefined): boolean {
  if (!answer || answer.role !== 'assistant' || answer.status === 'streaming') return false;
  return (
    triggers.has('always') ||
    (triggers.has('uncertainty') && answer.uncertain === true) ||
    (triggers.has('downvote') && answer.reaction === 'downvote')
  );
}
