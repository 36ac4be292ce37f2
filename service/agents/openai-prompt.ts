import type { ContentPart } from './attachments.js';
import type { Article } from './knowledge.js';
import { fitHistory } from './history-budget.js';
import { type Phrases, agentLanguage } from './phrases.js';
import type { AgentInput } from './types.js';

type ChatMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string | ContentPart[] }
  | {
      role: 'assistant';
      content: string | null;
      tool_calls?: { id: string; type: 'function'; function: { name: string; arguments: string } }[];
    }
  | { role: 'tool'; tool_call_id: string; content: string };

/**
 * The conversation a model call sends: the instructions with the documents found, the earlier
 * turns that fit `historyTokens`, the question, then this answer's tool rounds.
 */
export function promptOf(
  input: AgentInput,
  found: Article[],
  phrases: Phrases,
  historyTokens: number,
  question: string | ContentPart[] = input.message,
): ChatMessage[] {
  const docs = found.length
    ? found.map((a) => `## ${a.title}\nURL: ${a.url}\n\n${a.body}`).join('\n\n---\n\n')
    : '(no document matched this question)';
  const messages: ChatMessage[] = [
    { role: 'system', content: `${systemPrompt(input.locale, phrases)}\n\n# Documents\n\n${docs}` },
  ];
  const earlier = input.history
    .filter((m) => (m.content || m.attachments?.length) && m.status !== 'error')
    .map((m) => ({ role: m.role, content: withFileNames(m.content, m.attachments) }));
  messages.push(...fitHistory(earlier, historyTokens));
  messages.push({ role: 'user', content: question });
  input.rounds.forEach((round, i) => {
    messages.push({
      role: 'assistant',
      content: i === 0 && input.partial ? input.partial : null,
      tool_calls: round.calls.map((c) => ({
        id: c.id,
        type: 'function',
        function: { name: c.name, arguments: JSON.stringify(c.arguments) },
      })),
    });
    for (const r of round.results)
      messages.push({
        role: 'tool',
        tool_call_id: r.tool_call_id,
        content: 'error' in r ? `Error: ${r.error}` : JSON.stringify(r.output ?? null),
      });
  });
  return messages;
}

/** An earlier question names its files: they went with it, and are not sent again. */
function withFileNames(content: string, files: AgentInput['history'][number]['attachments']): string {
  if (!files?.length) return content;
  return `${content}\n\n(Files attached to this question, not shown again: ${files.map((f) => f.name).join(', ')})`.trim();
}

/** The instructions, in the visitor's language when the chat call named one. */
function systemPrompt(locale: string | undefined, phrases: Phrases): string {
  const known =
    locale !== undefined &&
    agentLanguage(locale) === phrases.language &&
    phrases.language === locale.split('-')[0].toLowerCase();
  const notFound =
    locale === undefined || known
      ? `say "${phrases.notFound}" and nothing else`
      : 'say in one short sentence that the documents do not cover it, and nothing else';
  const lines = [
    'You are the documentation assistant of this website. Answer only from the documents below, in Markdown, briefly.',
    `If they do not answer the question, ${notFound}.`,
    'Use a tool when the visitor asks for what it does.',
  ];
  if (locale !== undefined)
    lines.push(
      `The visitor reads ${languageName(locale)} (${locale}): write your answer in that language, whatever the language of the documents.`,
    );
  return lines.join('\n');
}

function languageName(locale: string): string {
  try {
    return new Intl.DisplayNames(['en'], { type: 'language' }).of(locale) ?? locale;
  } catch {
    return locale;
  }
}
