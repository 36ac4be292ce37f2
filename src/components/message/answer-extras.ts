import { css, html, nothing } from 'lit';
import { inWords, type ToolCallState, type ToolCallView } from '../../chat/tools.js';
import type { ChatMessage } from '../../chat/types.js';
import type { Translate, UiStringKey } from '../../i18n/index.js';
import { AgentChatToolDecideEvent } from '../../events/tool-decide.js';
import { icon } from '../icons.js';

const STATE_LABEL: Record<ToolCallState, UiStringKey> = {
  pending: 'toolPending',
  'awaiting-approval': 'toolAwaitingApproval',
  running: 'toolRunning',
  done: 'toolDone',
  error: 'toolError',
  denied: 'toolDenied',
};

/** Calls the visitor or the page is still busy with: the card says so, the typing dots do not. */
export const toolsBusy = (message: ChatMessage) =>
  (message.toolCalls ?? []).some(
    (c) => c.state === 'awaiting-approval' || c.state === 'running' || c.state === 'pending',
  );

const decide = (event: Event, toolCallId: string, allowed: boolean) =>
  event.target!.dispatchEvent(new AgentChatToolDecideEvent({ toolCallId, allowed }));

/** An argument's value as a visitor reads it: text as written, lists joined, anything else as compact JSON. */
function valueText(value: unknown): string {
  const text =
    typeof value === 'string'
      ? value
      : Array.isArray(value) && value.every((v) => typeof v !== 'object' || v === null)
        ? value.join(', ')
        : typeof value === 'object' && value !== null
          ? JSON.stringify(value)
          : String(value);
  return text.length > 200 ? `${text.slice(0, 199)}…` : text;
}

/** The arguments as a readable list ("Page: pricing"), for a tool that does not describe its calls. */
function renderArguments(args: unknown) {
  const entries = args && typeof args === 'object' ? Object.entries(args) : [];
  if (!entries.length) return nothing;
  return html`<dl class="tool-args">${entries.slice(0, 8).map(([key, value]) => html`<div><dt>${inWords(key)}</dt><dd dir="auto">${valueText(value)}</dd></div>`)}</dl>`;
}

function renderCall(t: Translate, call: ToolCallView) {
  const waiting = call.state === 'awaiting-approval';
  const done = call.state === 'done';
  return html`<li class="tool-call" part="tool-call" data-state=${call.state}>
    <div class="tool-head">
      <span class="tool-icon" aria-hidden="true">${icon(done ? 'check' : call.state === 'denied' || call.state === 'error' ? 'close' : 'bolt')}</span>
      <span class="tool-name" dir="auto">${call.sentence || call.displayName}</span>
      <span class="tool-state">${t(STATE_LABEL[call.state])}</span>
    </div>
    ${call.sentence ? nothing : renderArguments(call.arguments)}
    ${waiting && call.askedAgain ? html`<p class="tool-note">${t('toolAskedAgain')}</p>` : nothing}
    ${call.error && call.state === 'error' ? html`<p class="tool-error" dir="auto">${call.error}</p>` : nothing}
    ${
      waiting
        ? html`<div class="approval" role="group" aria-label=${call.displayName}>
          <button type="button" class="allow" @click=${(e: Event) => decide(e, call.id, true)}>${t('allow')}</button>
          <button type="button" @click=${(e: Event) => decide(e, call.id, false)}>${t('deny')}</button>
        </div>`
        : nothing
    }
  </li>`;
}

/** The client-side tool calls of an answer (§7): one card per call, saying what it does and where it stands. */
export function renderToolCalls(t: Translate, message: ChatMessage) {
  const calls = message.toolCalls ?? [];
  return calls.length
    ? html`<ul class="tool-calls">${calls.map((call) => renderCall(t, call))}</ul>`
    : nothing;
}

type Step = NonNullable<ChatMessage['activity']>[number];

/**
 * One step in words: the service's summary (written in the visitor's language, §4), else the
 * widget's own words for where the step stands; never the step's wire name.
 */
function stepText(t: Translate, step: Step): string {
  if (step.summary) return step.summary;
  const words = t(
    step.status === 'started' ? 'stepWorking' : step.status === 'error' ? 'stepFailed' : 'stepDone',
  );
  return step.numResults !== null ? `${words} · ${t('stepResults', { count: step.numResults })}` : words;
}

/**
 * The agent's steps on the service as one line, the latest step (the current one while the
 * answer streams, how it ended once it has), with every step behind it on request.
 * `expanded` is the message's own toggle.
 */
export function renderActivity(t: Translate, message: ChatMessage, expanded: boolean, toggle: () => void) {
  const steps = message.activity ?? [];
  if (!steps.length) return nothing;
  const live = message.status === 'streaming' && steps.at(-1)!.status === 'started';
  return html`<div class="activity" part="activity">
    <button type="button" class="steps-toggle ${live ? 'live' : ''}" aria-expanded=${expanded ? 'true' : 'false'} @click=${toggle}><span dir="auto">${stepText(t, steps.at(-1)!)}</span>${icon('chevronDown')}</button>
    ${expanded ? html`<ol class="steps">${steps.map((s) => html`<li data-status=${s.status} dir="auto">${stepText(t, s)}</li>`)}</ol>` : nothing}
  </div>`;
}

/** The uncertainty callout (`metadata.is_uncertain`); its text is the `uncertain` string. */
export function renderUncertain(t: Translate, message: ChatMessage) {
  return message.uncertain
    ? html`<p class="uncertain" part="uncertain" role="note">${t('uncertain')}</p>`
    : nothing;
}

export const answerExtrasStyles = css`
  .tool-calls, .steps { list-style: none; margin: 0 0 8px; padding: 0; }
  .tool-call {
    display: grid; gap: 8px; margin: 0 0 6px; padding: 10px 12px;
    border: 1px solid var(--agent-chat-color-border); border-radius: var(--agent-chat-radius);
    background: var(--agent-chat-color-surface); font-size: 0.9em; line-height: 1.4;
  }
  .tool-call[data-state='awaiting-approval'] { border-color: var(--agent-chat-color-accent); box-shadow: 0 1px 4px rgb(0 0 0 / 0.08); }
  .tool-head { display: flex; align-items: center; gap: 8px; min-width: 0; }
  .tool-icon {
    flex: none; display: grid; place-items: center; width: 24px; height: 24px; border-radius: 50%;
    background: var(--agent-chat-color-surface-raised); color: var(--agent-chat-color-text-muted);
  }
  .tool-icon svg { width: 14px; height: 14px; }
  [data-state='done'] .tool-icon { color: var(--agent-chat-color-accent); }
  [data-state='error'] .tool-icon { color: var(--agent-chat-color-danger); }
  .tool-name { flex: 1; min-width: 0; text-align: match-parent; text-align: -webkit-match-parent; font-weight: 600; overflow-wrap: anywhere; }
  .tool-state { flex: none; font-size: 0.9em; color: var(--agent-chat-color-text-muted); }
  .tool-args { display: grid; gap: 2px; margin: 0; padding-inline-start: 32px; }
  .tool-args div { display: flex; gap: 6px; min-width: 0; }
  .tool-args dt { color: var(--agent-chat-color-text-muted); }
  .tool-args dt::after { content: ':'; }
  .tool-args dd { margin: 0; min-width: 0; overflow-wrap: anywhere; }
  .tool-note, .tool-error { margin: 0; padding-inline-start: 32px; color: var(--agent-chat-color-text-muted); }
  .tool-error { color: var(--agent-chat-color-danger); }
  .approval { display: flex; gap: 8px; padding-inline-start: 32px; }
  .approval button {
    font: inherit; min-height: 32px; padding: 4px 14px; cursor: pointer; border-radius: 999px;
    border: 1px solid var(--agent-chat-color-border); background: var(--agent-chat-color-surface); color: var(--agent-chat-color-text);
  }
  .approval .allow { background: var(--agent-chat-color-accent); color: var(--agent-chat-color-on-accent); border-color: transparent; }
  .approval button:hover { filter: brightness(0.96); }
  .steps-toggle {
    display: inline-flex; align-items: center; gap: 2px; max-width: 100%; border: none; background: none;
    padding: 2px 6px 2px 0; font: inherit; font-size: 0.85em; border-radius: 6px; cursor: pointer;
    color: var(--agent-chat-color-text-muted); text-align: start;
  }
  .steps-toggle:hover { color: var(--agent-chat-color-text); }
  .steps-toggle svg { flex: none; width: 16px; height: 16px; }
  .steps-toggle[aria-expanded='true'] svg { transform: rotate(180deg); }
  .activity { margin-bottom: 4px; }
  .steps { font-size: 0.85em; margin: 2px 0 8px; padding-inline-start: 10px; border-inline-start: 2px solid var(--agent-chat-color-border); color: var(--agent-chat-color-text-muted); }
  .steps li { padding: 1px 0; }
  .steps [data-status='error'] { color: var(--agent-chat-color-danger); }
  @media (prefers-reduced-motion: no-preference) {
    .live span { animation: pulse 1.4s ease-in-out infinite; }
  }
  @keyframes pulse { 50% { color: var(--agent-chat-color-text); } }
  .uncertain {
    margin: 6px 0 0; padding: 6px 10px; font-size: 0.9em;
    border-inline-start: 3px solid var(--agent-chat-color-danger);
    background: var(--agent-chat-color-surface-raised); color: var(--agent-chat-color-text);
  }
  @media (pointer: coarse) {
    .approval button, .steps-toggle { min-height: 44px; }
  }
`;
