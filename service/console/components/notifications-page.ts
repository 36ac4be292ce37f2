import { css, html, nothing } from 'lit';
import { state } from 'lit/decorators.js';
import { ConsoleApiError, attempt } from '../api.js';
import type {
  ConsoleNotificationEvent,
  ConsoleWebhook,
  ConsoleWebhookDelivery,
} from '../../../contract/console.js';
import { when } from '../format.js';
import { field } from '../form.js';
import { ConsolePage, readOnlyNote } from './page.js';

const EVENTS: { id: ConsoleNotificationEvent; label: string; short: string }[] = [
  { id: 'handoff', label: 'A visitor asks for a person', short: 'Asks for a person' },
  { id: 'downvote', label: 'An answer is voted not helpful', short: 'Not helpful' },
  { id: 'answer_failed', label: 'An answer fails', short: 'Answer failed' },
];
const EVENT_NAMES: Record<ConsoleWebhookDelivery['event'], string> = {
  handoff: 'Asks for a person',
  downvote: 'Not helpful',
  answer_failed: 'Answer failed',
  test: 'Test',
};

/** What a delivery came to, in words: delivered, waiting for its next attempt, or given up. */
function result(d: ConsoleWebhookDelivery): { label: string; tone: string; why: string } {
  const code = d.status_code === null ? '' : ` (${d.status_code})`;
  const why = d.error ?? '';
  if (d.status === 'sent') return { label: `Delivered${code}`, tone: 'ok', why };
  if (d.status === 'failed') return { label: `Failed${code}`, tone: 'bad', why };
  return d.attempts
    ? { label: `Will try again${code}`, tone: 'warn', why }
    : { label: 'Waiting', tone: '', why };
}

/**
 * Webhooks of the project: add one (its signing secret shown once), see what each was sent and
 * why something did not arrive, send a test, delete.
 */
export class NotificationsPage extends ConsolePage {
  static styles = [
    ...ConsolePage.styles,
    css`
    .secret { border-color: var(--c-ok); }
    .secret input { flex: 1; font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; min-width: 12ch; }
    .add .url { flex: 1 1 320px; }
    .add .url input { width: 100%; }
    fieldset { border: 0; padding: 0; margin: 0; min-width: 0; display: flex; flex-wrap: wrap; gap: 6px 18px; }
    legend { font-weight: 550; margin-bottom: 6px; padding: 0; }
    .check { display: inline-flex; align-items: center; gap: 6px; font-weight: 500; }
    .hook-head { display: flex; flex-wrap: wrap; align-items: center; gap: 8px 12px; }
    .hook-head h2 { margin: 0; overflow-wrap: anywhere; font-size: 16px; }
    .events { display: flex; flex-wrap: wrap; gap: 6px; }
    .why { color: var(--c-muted); font-size: 13px; overflow-wrap: anywhere; }
  `,
  ];

  @state() private webhooks: ConsoleWebhook[] | null = null;
  /** Whether the messages link the conversation (the service knows its public URL). */
  @state() private links = true;
  @state() private error = '';
  @state() private said = '';
  @state() private fresh: { secret: string; url: string } | null = null;
  @state() private pending: ConsoleWebhook | null = null;

  updated(changed: Map<string, unknown>) {
    if (changed.has('project')) {
      this.fresh = null;
      this.error = '';
      void this.load();
    }
  }

  private async load() {
    try {
      // The error stays: the list reloads after each change, and a refusal must stay readable.
      const list = await this.api.webhooks(this.project.id);
      this.webhooks = list.webhooks;
      this.links = list.conversation_links;
    } catch (error) {
      this.error = error instanceof ConsoleApiError ? error.message : 'The webhooks could not be loaded.';
    }
  }

  render() {
    return html`<div class="stack">
      <div class="page-head"><div><h1 tabindex="-1">Notifications</h1><p class="muted">Webhooks tell your team when a visitor of ${this.project.name} needs them. Slack, Mattermost and Discord incoming webhooks take them as they are; a program can check their signature.</p>${this.links ? nothing : html`<p class="muted">Messages carry no link to the conversation: this service does not know the address your team opens it at. Start it with <code>--public-url https://…</code> for one.</p>`}</div></div>
      ${this.secretCard()}
      ${this.viewer ? readOnlyNote('the webhooks and what they delivered', 'add, test or delete one') : this.form()}
      ${this.error ? html`<p class="notice error" role="alert">${this.error}</p>` : nothing}
      <p class="visually-hidden" role="status">${this.said}</p>
      ${this.webhooks === null ? html`<p class="muted" role="status">Loading webhooks…</p>` : this.list(this.webhooks)}
      ${this.dialog()}
    </div>`;
  }

  private secretCard() {
    if (!this.fresh) return nothing;
    return html`<section class="card secret stack" aria-labelledby="secret-title">
      <h2 id="secret-title">Signing secret of ${this.fresh.url}</h2>
      <p>Copy it now if a program receives these notifications: it is shown only once. Slack, Mattermost and Discord do not need it.</p>
      <div class="row"><input readonly aria-label="Signing secret" .value=${this.fresh.secret} @focus=${(e: Event) => (e.target as HTMLInputElement).select()}>
        <button class="primary" @click=${this.copy}>Copy</button>
        <button @click=${() => {
          this.fresh = null;
        }}>Done</button></div>
    </section>`;
  }

  private form() {
    return html`<form class="card stack add" @submit=${this.create} aria-labelledby="add-title">
      <h2 id="add-title">Add a webhook</h2>
      <label class="url">Webhook address <span class="hint" id="url-hint">The incoming webhook URL your chat tool gives, or your program’s https:// address</span><input name="url" type="url" required maxlength="2000" autocomplete="off" placeholder="https://hooks.slack.com/services/…" aria-describedby="url-hint"></label>
      <fieldset><legend>Send a message when</legend>
        ${EVENTS.map((e) => html`<label class="check"><input type="checkbox" name="events" value=${e.id} ?checked=${e.id !== 'answer_failed'}>${e.label}</label>`)}
      </fieldset>
      <div class="row"><button class="primary" type="submit">Add webhook</button></div>
    </form>`;
  }

  private list(webhooks: ConsoleWebhook[]) {
    if (!webhooks.length)
      return html`<p class="card muted">No webhooks yet.${this.viewer ? '' : ' Add your team’s Slack, Mattermost or Discord incoming webhook above.'}</p>`;
    return webhooks.map(
      (w) => html`<section class="card stack" aria-label="Webhook ${w.url_shown}">
      <div class="hook-head"><h2>${w.url_shown}</h2>
        <div class="events">${w.events.map((e) => html`<span class="pill">${EVENTS.find((x) => x.id === e)?.short}</span>`)}</div>
        <span class="spacer"></span>
        ${
          this.viewer
            ? nothing
            : html`<button class="small" aria-label="Send a test to ${w.url_shown}" @click=${() => this.test(w)}>Send a test</button>
        <button class="small danger" aria-label="Delete ${w.url_shown}" @click=${() => this.ask(w)}>Delete</button>`
        }
      </div>
      ${this.deliveries(w)}
    </section>`,
    );
  }

  private deliveries(w: ConsoleWebhook) {
    if (!w.deliveries.length) return html`<p class="muted">Nothing sent yet.</p>`;
    return html`<div class="table-wrap" tabindex="0" role="region" aria-label="Recent deliveries to ${w.url_shown}"><table class="records">
      <caption class="visually-hidden">Recent deliveries to ${w.url_shown}</caption>
      <thead><tr><th scope="col">Time</th><th scope="col">Event</th><th scope="col">Result</th><th scope="col">Attempts</th></tr></thead>
      <tbody>${w.deliveries.map((d) => {
        const r = result(d);
        return html`<tr>
          <td data-label="Time">${when(d.last_attempt_at ?? d.created_at)}</td>
          <td data-label="Event">${EVENT_NAMES[d.event]}</td>
          <td data-label="Result"><span><span class="pill ${r.tone}">${r.label}</span>${r.why ? html` <span class="why">${r.why}</span>` : nothing}</span></td>
          <td data-label="Attempts">${d.attempts}</td>
        </tr>`;
      })}</tbody>
    </table></div>`;
  }

  private dialog() {
    const w = this.pending;
    return html`<dialog aria-labelledby="confirm-title" @close=${() => {
      this.pending = null;
    }}>${
      w
        ? html`<form class="stack" method="dialog" @submit=${this.deleteHook}>
        <h2 id="confirm-title">Delete the webhook ${w.url_shown}?</h2>
        <p>It is told nothing more, and its deliveries are forgotten.</p>
        <div class="row"><span class="spacer"></span><button type="button" @click=${this.closeDialog}>Cancel</button><button class="danger solid" type="submit">Delete webhook</button></div>
      </form>`
        : nothing
    }</dialog>`;
  }

  private ask(w: ConsoleWebhook) {
    this.pending = w;
    this.showDialog();
  }

  private async run(action: () => Promise<void>) {
    await attempt(action, (e) => (this.error = e));
    await this.load();
  }

  private async create(event: SubmitEvent) {
    event.preventDefault();
    const form = event.target as HTMLFormElement;
    const data = new FormData(form);
    const events = data.getAll('events').map(String) as ConsoleNotificationEvent[];
    if (!events.length) {
      this.error = 'Choose at least one thing to be told about.';
      return;
    }
    await this.run(async () => {
      const created = await this.api.createWebhook(this.project.id, {
        url: field(data, 'url').trim(),
        events,
      });
      form.reset();
      this.fresh = { secret: created.secret, url: created.url_shown };
      this.said = `Webhook ${created.url_shown} added.`;
    });
  }

  private async test(w: ConsoleWebhook) {
    this.said = `Sending a test to ${w.url_shown}…`;
    await this.run(async () => {
      const d = await this.api.testWebhook(this.project.id, w.id);
      const r = result(d);
      this.said = `Test to ${w.url_shown}: ${r.label}${r.why ? `, ${r.why}` : ''}.`;
    });
  }

  private async deleteHook() {
    const w = this.pending!;
    await this.run(async () => {
      await this.api.deleteWebhook(this.project.id, w.id);
      this.said = `Webhook ${w.url_shown} deleted.`;
    });
  }

  private async copy() {
    if (!this.fresh) return;
    try {
      await navigator.clipboard.writeText(this.fresh.secret);
      this.said = 'Copied to the clipboard.';
    } catch {
      this.renderRoot.querySelector<HTMLInputElement>('input[aria-label="Signing secret"]')?.select();
    }
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'notifications-page': NotificationsPage;
  }
}
