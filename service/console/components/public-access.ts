import { css, html, nothing } from 'lit';
import {
  PUBLIC_NEEDS_ORIGIN,
  type ConsoleIntegration,
  type ConsoleIntegrationPatch,
  type ConsoleRefusedOrigin,
} from '../../../contract/console.js';
import { field } from '../form.js';
import { ago, count } from '../format.js';

export const publicAccessStyles = css`
  fieldset { border: 1px solid var(--c-border); border-radius: 8px; padding: 12px 14px 14px; margin: 0; min-width: 0; }
  legend { font-weight: 600; padding: 0 4px; }
  label.check { display: flex; gap: 8px; align-items: center; }
  .budgets { display: grid; grid-template-columns: repeat(auto-fit, minmax(160px, 1fr)); gap: 12px; }
  .budgets input { width: 100%; }
  .use { font-variant-numeric: tabular-nums; }
  .refused { margin: 0; padding-left: 18px; }
  .refused li { margin: 4px 0; }
`;

/** "12 of 500 sessions" for today's use against the day's budget. */
const used = (spent: number, budget: number, what: string) => `${count(spent)} of ${count(budget)} ${what}`;

/**
 * The integration's public setting (wire contract §2b) and its daily budgets with today's use,
 * inside the integration's form (its Save sends them with the name and origins).
 */
export function publicAccessFields(integration: ConsoleIntegration) {
  const { budget, today } = integration;
  return html`<fieldset class="stack">
    <legend>Visitors without a site server</legend>
    <label class="check"><input type="checkbox" name="public" ?checked=${integration.public} aria-describedby="public-hint">Allow visitors without a site server</label>
    <p class="hint muted" id="public-hint">For a static site or a hosted CMS: the service starts each visitor’s chat itself, after about a second of proof of work in their browser, with no session endpoint and no API key. ${PUBLIC_NEEDS_ORIGIN.replace('A public integration', 'It')} A page elsewhere, or a script that fakes its origin, is bounded by the budgets below.</p>
    <div class="budgets">
      <label>Sessions a day <input type="number" name="budget-sessions" required min="0" max="1000000" step="1" inputmode="numeric" .value=${String(budget.sessions)} aria-describedby="budget-use"></label>
      <label>Answers a day <input type="number" name="budget-answers" required min="0" max="1000000" step="1" inputmode="numeric" .value=${String(budget.answers)} aria-describedby="budget-use"></label>
    </div>
    <p class="use" id="budget-use">Today (UTC): ${used(today.sessions, budget.sessions, 'sessions')}, ${used(today.answers, budget.answers, 'answers')}. Past a budget, visitors read that the chat has reached its limit for today.</p>
    ${integration.public && integration.refused_origins.length ? refusedList(integration.refused_origins) : nothing}
  </fieldset>`;
}

/**
 * The start-up flags' origins, which each start writes over this list (decisions 200, 717): an
 * origin added here and not there is gone after the next restart, unless the owner is told.
 */
export function startOriginsNote({ allowed_origins: now, origins_at_start: start }: ConsoleIntegration) {
  if (!start) return nothing;
  const same = now.length === start.length && now.every((origin) => start.includes(origin));
  return html`<p class=${same ? 'hint muted' : 'notice warn'}>The service is started with <code>--allowed-origin</code> for this integration: each start sets this list to ${start.join(', ')} again.${same ? nothing : html` Add the other origins to the start command too (<code>--allowed-origin</code>, or <code>AGENT_CHAT_ALLOWED_ORIGINS</code>) to keep them.`}</p>`;
}

/** Puts a refused origin on the form's list of allowed origins, for its Save to keep. */
function allow(event: Event, origin: string) {
  const list = (event.target as HTMLElement).closest('form')?.querySelector('textarea');
  if (!list) return;
  list.value = [...list.value.split('\n').filter((line) => line.trim()), origin].join('\n');
  list.focus();
}

/**
 * The origins whose pages this integration refused lately (decision 715): a site builder's
 * embed block runs in a frame on an origin of the builder's, which its owner never sees but here.
 */
function refusedList(refused: ConsoleRefusedOrigin[]) {
  const item = ({ origin, count: times, last_at }: ConsoleRefusedOrigin) =>
    origin === 'null'
      ? html`<li>Pages with no origin, ${count(times)}× (last ${ago(last_at)}): a sandboxed frame, as some site builders draw an HTML embed block, or a file opened from disk. No list can allow them: paste the tag into the site’s own header or footer code instead.</li>`
      : html`<li><code>${origin}</code>, ${count(times)}× (last ${ago(last_at)}) <button type="button" class="small" aria-label="Allow ${origin}" @click=${(e: Event) => allow(e, origin)}>Allow</button></li>`;
  return html`<p><strong id="refused-title">Refused lately</strong> <span class="muted">(the last 30 days, on every instance): pages that tried to start a chat from an origin not allowed. A site builder’s embed block often runs in a frame on an origin of its own: allow it, then Save.</span></p>
    <ul class="refused" aria-labelledby="refused-title">${refused.map(item)}</ul>`;
}

/** What the form says of the public setting; an error message instead when it cannot be saved as is. */
export function publicAccessPatch(
  data: FormData,
  origins: string[],
): { patch: Pick<ConsoleIntegrationPatch, 'public' | 'budget'> } | { error: string } {
  const isPublic = data.get('public') === 'on';
  if (isPublic && !origins.length) return { error: PUBLIC_NEEDS_ORIGIN };
  return {
    patch: {
      public: isPublic,
      budget: {
        sessions: Number(field(data, 'budget-sessions')),
        answers: Number(field(data, 'budget-answers')),
      },
    },
  };
}
