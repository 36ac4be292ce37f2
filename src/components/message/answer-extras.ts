import { css, html, nothing } from 'lit';
import type { ToolCallState, ToolCallView } from '../../chat/tools.js';
import type { ChatMessage } from '../../chat/types.js';
import type { Translate, UiStringKey } from '../../i18n/index.js';
import { AgentChatToolDecideEvent } from '../../events/tool-decide.js';
import { AgentChatOutboxCancelEvent } from '../../events/outbox-cancel.js';
import { icon } from '../icons.js';

const STATE_LABEL: Record<ToolCallState, UiStringKey> = {
  pending: 'toolPending',
  'awaiting-approval': 'toolAwaitingApproval',
  running: 'toolRunning',
  done: 'toolDone',
  error: 'toolError',
  denied: 'toolDenied',
};

const decide = (event: Event, toolCallId: string, allowed: boolean) =>
  event.target!.dispatchEvent(new AgentChatToolDecideEvent({ toolCallId, allowed }));

/** "850 ms", "1.2 s" in the widget's language (Intl's units, not our strings). */
function duration(ms: number, locale: string): string {
  const [value, unit] = ms < 1000 ? [ms, 'millisecond'] : [Math.round(ms / 100) / 10, 'second'];
  return new Intl.NumberFormat(locale, { style: 'unit', unit, unitDisplay: 'short' }).format(value);
}

function renderCall(t: Translate, locale: string, call: ToolCallView) {
  const waiting = call.state === 'awaiting-approval';
  return html`<li class="tool-call" part="tool-call" data-state=${call.state}>
    <span class="tool-name">${call.displayName}</span>
    <span class="tool-state">${t(STATE_LABEL[call.state])}${call.durationMs !== undefined ? html` · ${duration(call.durationMs, locale)}` : nothing}</span>
    ${call.error && call.state === 'error' ? html`<span class="tool-error">${call.error}</span>` : nothing}
    ${waiting
      ? html`<div class="approval" role="group" aria-label=${call.displayName}>
          <button type="button" class="allow" @click=${(e: Event) => decide(e, call.id, true)}>${t('allow')}</button>
          <button type="button" @click=${(e: Event) => decide(e, call.id, false)}>${t('deny')}</button>
        </div>`
      : nothing}
  </li>`;
}

/** The client-side tool calls of an answer (§7): one card per call with its state and duration. */
export function renderToolCalls(t: Translate, locale: string, message: ChatMessage) {
  const calls = message.toolCalls ?? [];
  return calls.length ? html`<ul class="tool-calls">${calls.map((call) => renderCall(t, locale, call))}</ul>` : nothing;
}

/** "Searched the docs · 4 results": one line per agent step. */
function activityLine(step: NonNullable<ChatMessage['activity']>[number]): string {
  const words = step.summary || step.name.replaceAll('_', ' ');
  return step.numResults !== null && !step.summary?.includes(String(step.numResults)) ? `${words} · ${step.numResults}` : words;
}

/**
 * The agent's steps on the service: live while the answer streams, behind "Show steps" once it
 * has ended (and in a resumed thread). `expanded` is the message's own toggle.
 */
export function renderActivity(t: Translate, message: ChatMessage, expanded: boolean, toggle: () => void) {
  const steps = message.activity ?? [];
  if (!steps.length) return nothing;
  const live = message.status === 'streaming';
  const open = live || expanded;
  return html`<div class="activity" part="activity">
    ${live ? nothing : html`<button type="button" class="steps-toggle" aria-expanded=${open ? 'true' : 'false'} @click=${toggle}>${t(open ? 'hideSteps' : 'showSteps')}${icon('chevronDown')}</button>`}
    ${open ? html`<ul class="steps">${steps.map((s) => html`<li data-status=${s.status}>${activityLine(s)}</li>`)}</ul>` : nothing}
  </div>`;
}

/** A question in the outbox: "Waiting for a connection" and "Cancel sending". */
export function renderWaiting(t: Translate, message: ChatMessage) {
  if (message.status !== 'waiting') return nothing;
  return html`<div class="waiting" part="waiting" role="status">
    <span>${t('waitingForConnection')}</span>
    <button type="button" class="steps-toggle" @click=${(e: Event) => e.target!.dispatchEvent(new AgentChatOutboxCancelEvent({ messageId: message.id }))}>${t('cancelSending')}</button>
  </div>`;
}

/** The uncertainty callout (`metadata.is_uncertain`); its text is the `uncertain` string. */
export function renderUncertain(t: Translate, message: ChatMessage) {
  return message.uncertain ? html`<p class="uncertain" part="uncertain" role="note">${t('uncertain')}</p>` : nothing;
}

export const answerExtrasStyles = css`
  .tool-calls, .steps { list-style: none; margin: 4px 0; padding: 0; }
  .tool-call {
    display: flex; flex-wrap: wrap; gap: 4px 8px; align-items: center;
    margin: 4px 0; padding: 6px 10px;
    border: 1px solid var(--agent-chat-color-border); border-radius: var(--agent-chat-radius);
    font-size: 0.9em;
  }
  .tool-name { font-weight: 600; }
  .tool-state, .steps, .steps-toggle { color: var(--agent-chat-color-text-muted); }
  .tool-error { color: var(--agent-chat-color-danger); flex-basis: 100%; }
  .approval { display: flex; gap: 6px; flex-basis: 100%; }
  .approval button, .steps-toggle {
    font: inherit; padding: 2px 10px; cursor: pointer;
    border: 1px solid var(--agent-chat-color-border); border-radius: var(--agent-chat-radius);
    background: var(--agent-chat-color-surface); color: var(--agent-chat-color-text);
  }
  .approval .allow { background: var(--agent-chat-color-accent); color: var(--agent-chat-color-on-accent); border-color: transparent; }
  .approval button:focus-visible, .steps-toggle:focus-visible { outline: 2px solid var(--agent-chat-color-focus); outline-offset: 2px; }
  .steps-toggle {
    display: inline-flex; align-items: center; gap: 2px; border: none; background: none;
    padding: 2px 6px 2px 0; font-size: 0.85em; border-radius: 6px;
  }
  .steps-toggle:hover { color: var(--agent-chat-color-text); }
  .steps-toggle svg { width: 16px; height: 16px; }
  .steps-toggle[aria-expanded='true'] svg { transform: rotate(180deg); }
  .steps { font-size: 0.85em; margin: 2px 0 6px; padding-inline-start: 10px; border-inline-start: 2px solid var(--agent-chat-color-border); }
  .steps li { padding: 1px 0; }
  .waiting { display: flex; gap: 8px; justify-content: flex-end; font-size: 0.85em; color: var(--agent-chat-color-text-muted); margin-top: 2px; }
  .waiting .steps-toggle { text-decoration: underline; }
  .uncertain {
    margin: 6px 0 0; padding: 6px 10px; font-size: 0.9em;
    border-inline-start: 3px solid var(--agent-chat-color-danger);
    background: var(--agent-chat-color-surface-raised); color: var(--agent-chat-color-text);
  }
`;
