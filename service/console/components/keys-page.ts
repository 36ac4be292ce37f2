import { css, html, nothing } from 'lit';
import { state } from 'lit/decorators.js';
import { ConsoleApiError, attempt } from '../api.js';
import type { ConsoleApiKey } from '../../../contract/console.js';
import { SESSION_TTL_MS } from '../../../contract/limits.js';
import { ago, when } from '../format.js';
import { ConsolePage } from './page.js';
import { field } from '../form.js';

const OVERLAPS = [
  { seconds: 0, label: 'Stop the old key now' },
  { seconds: 3_600, label: '1 hour' },
  { seconds: 86_400, label: '24 hours' },
  { seconds: 7 * 86_400, label: '7 days' },
  { seconds: 30 * 86_400, label: '30 days' },
];

const STATUS = {
  active: ['Active', 'ok'],
  expiring: ['Until', 'warn'],
  expired: ['Expired', ''],
  revoked: ['Revoked', 'bad'],
} as const;

/** Whether sessions the key minted may still run: it was revoked less than a session's lifetime ago, and they were not ended. */
const sessionsMayRun = (k: ConsoleApiKey) =>
  k.revoked_at !== null &&
  k.sessions_ended_at === null &&
  Date.now() - Date.parse(k.revoked_at) < SESSION_TTL_MS;

/** API keys: create (shown once), list, rotate with an overlap, revoke (and end the sessions a key minted). */
export class KeysPage extends ConsolePage {
  static styles = [
    ...ConsolePage.styles,
    css`
    .new-key { border-color: var(--c-ok); }
    .new-key input { flex: 1; font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; min-width: 12ch; }
    .create { align-items: end; }
    .create label { flex: 1; min-width: 200px; }
    td.actions { white-space: nowrap; text-align: end; }
    td.actions button + button { margin-inline-start: 6px; }
    .prefix { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
    @media (max-width: 640px) {
      table.records td.name { grid-column: 1; font-weight: 600; overflow-wrap: anywhere; }
      table.records td.state { grid-column: 2; grid-row: 1; }
      table.records td.actions { display: flex; gap: 8px; justify-content: flex-start; padding-top: 4px; }
      table.records td.actions:empty { display: none; }
      table.records td.actions button + button { margin: 0; }
    }
  `,
  ];

  @state() private keys: ConsoleApiKey[] | null = null;
  @state() private error = '';
  @state() private fresh: { id: string; key: string; name: string; note: string } | null = null;
  @state() private copied = false;
  @state() private pending: { kind: 'rotate' | 'revoke' | 'end'; key: ConsoleApiKey } | null = null;

  updated(changed: Map<string, unknown>) {
    if (changed.has('project')) {
      this.fresh = null;
      void this.load();
    }
  }

  private async load() {
    try {
      this.keys = await this.api.keys(this.project.id);
      this.error = '';
    } catch (error) {
      this.error = error instanceof ConsoleApiError ? error.message : 'The keys could not be loaded.';
    }
  }

  render() {
    return html`<div class="stack">
      <div class="page-head"><div><h1 tabindex="-1">API keys</h1><p class="muted">Your server sends one of these keys to start chat sessions for ${this.project.name}. Keep them on the server.</p></div></div>
      ${
        this.fresh
          ? html`<section class="card new-key stack" aria-labelledby="new-key-title">
        <h2 id="new-key-title">Your new key “${this.fresh.name}”</h2>
        <p>Copy it now: it is shown only once. ${this.fresh.note}</p>
        <div class="row"><input readonly aria-label="New API key" .value=${this.fresh.key} @focus=${(e: Event) => (e.target as HTMLInputElement).select()}>
          <button class="primary" @click=${this.copy}>${this.copied ? 'Copied' : 'Copy'}</button>
          <button @click=${() => {
            this.fresh = null;
          }}>Done</button></div>
        <p class="visually-hidden" role="status">${this.copied ? 'Copied to the clipboard.' : ''}</p>
      </section>`
          : nothing
      }
      <form class="card row create" @submit=${this.create}>
        <label>Key name <span class="hint" id="key-name-hint" aria-hidden="true">Where it is used, e.g. “Production web server”</span><input name="name" required maxlength="80" autocomplete="off" aria-describedby="key-name-hint"></label>
        <button class="primary" type="submit">Create API key</button>
      </form>
      ${this.error ? html`<p class="notice error" role="alert">${this.error}</p>` : nothing}
      ${this.keys === null ? html`<p class="muted" role="status">Loading keys…</p>` : this.table(this.keys)}
      ${this.dialog()}
    </div>`;
  }

  private table(keys: ConsoleApiKey[]) {
    if (!keys.length)
      return html`<p class="card muted">No keys yet. Create one for each server that starts chat sessions.</p>`;
    return html`<div class="card table-wrap" tabindex="0" role="region" aria-label="API keys of ${this.project.name}"><table class="records">
      <caption class="visually-hidden">API keys of ${this.project.name}</caption>
      <thead><tr><th scope="col">Name</th><th scope="col">Key</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col">Status</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
      <tbody>${keys.map((k) => {
        const [label, tone] = STATUS[k.status];
        const live = k.status === 'active' || k.status === 'expiring';
        return html`<tr>
          <td class="name">${k.name}</td>
          <td class="prefix" data-label="Key">${k.prefix}…</td>
          <td data-label="Created">${when(k.created_at)}</td>
          <td data-label="Last used" title=${k.last_used_at ? when(k.last_used_at) : nothing}>${ago(k.last_used_at)}</td>
          <td class="state"><span class="pill ${tone}">${label}${k.status === 'expiring' ? ` ${when(k.expires_at)}` : ''}</span></td>
          <td class="actions">${
            live
              ? html`
            ${k.status === 'active' ? html`<button class="small" aria-label="Rotate ${k.name}" @click=${() => this.ask('rotate', k)}>Rotate</button>` : nothing}
            <button class="small danger" aria-label="Revoke ${k.name}" @click=${() => this.ask('revoke', k)}>Revoke</button>`
              : sessionsMayRun(k)
                ? html`<button class="small danger" aria-label="End sessions of ${k.name}" @click=${() => this.ask('end', k)}>End sessions</button>`
                : nothing
          }</td>
        </tr>`;
      })}</tbody>
    </table></div>`;
  }

  private dialog() {
    const p = this.pending;
    return html`<dialog aria-labelledby="confirm-title" @close=${() => {
      this.pending = null;
    }}>
      ${
        p?.kind === 'revoke'
          ? html`<form class="stack" method="dialog" @submit=${this.revoke}>
        <h2 id="confirm-title">Revoke ${p.key.name}?</h2>
        <p>Servers using <code>${p.key.prefix}…</code> can no longer start chat sessions (on every instance within seconds). Sessions it already started run until they expire, within an hour, unless you end them too: their visitors then need a new session from a server with another key.</p>
        <div class="row"><span class="spacer"></span><button type="button" @click=${this.closeDialog}>Cancel</button><button class="danger" type="submit" value="revoke">Revoke key</button><button class="danger solid" type="submit" value="end">Revoke and end its sessions</button></div>
      </form>`
          : p?.kind === 'end'
            ? html`<form class="stack" method="dialog" @submit=${this.revoke}>
        <h2 id="confirm-title">End the sessions of ${p.key.name}?</h2>
        <p>Chat sessions started with <code>${p.key.prefix}…</code> stop working (on every instance within seconds); their visitors need a new session from a server with another key.</p>
        <div class="row"><span class="spacer"></span><button type="button" @click=${this.closeDialog}>Cancel</button><button class="danger solid" type="submit" value="end">End sessions</button></div>
      </form>`
            : p?.kind === 'rotate'
              ? html`<form class="stack" method="dialog" @submit=${this.rotate}>
        <h2 id="confirm-title">Rotate ${p.key.name}</h2>
        <p>A new key replaces <code>${p.key.prefix}…</code>. Keep the old one working long enough to deploy the new one everywhere.</p>
        <label>Old key keeps working for <select name="overlap">${OVERLAPS.map((o) => html`<option value=${o.seconds} ?selected=${o.seconds === 86_400}>${o.label}</option>`)}</select></label>
        <div class="row"><span class="spacer"></span><button type="button" @click=${this.closeDialog}>Cancel</button><button class="primary" type="submit">Rotate key</button></div>
      </form>`
              : nothing
      }
    </dialog>`;
  }

  private ask(kind: 'rotate' | 'revoke' | 'end', key: ConsoleApiKey) {
    this.pending = { kind, key };
    this.showDialog();
  }

  private async run(action: () => Promise<void>) {
    await attempt(action, (e) => (this.error = e));
    await this.load();
  }

  private async create(event: SubmitEvent) {
    event.preventDefault();
    const form = event.target as HTMLFormElement;
    const name = field(new FormData(form), 'name').trim();
    if (!name) return;
    await this.run(async () => {
      const created = await this.api.createKey(this.project.id, name);
      form.reset();
      this.show(
        created.id,
        created.key,
        created.name,
        'Store it in your server’s secrets (for example AGENT_CHAT_API_KEY).',
      );
    });
  }

  private async rotate(event: SubmitEvent) {
    const key = this.pending!.key;
    const overlap = Number(new FormData(event.target as HTMLFormElement).get('overlap'));
    await this.run(async () => {
      const rotated = await this.api.rotateKey(this.project.id, key.id, overlap);
      this.show(
        rotated.id,
        rotated.key,
        rotated.name,
        overlap
          ? `The old key keeps working until ${when(rotated.replaced.expires_at)}.`
          : 'The old key has stopped working.',
      );
    });
  }

  private async revoke(event: SubmitEvent) {
    const key = this.pending!.key;
    const endSessions = (event.submitter as HTMLButtonElement | null)?.value === 'end';
    await this.run(() => this.api.revokeKey(this.project.id, key.id, { endSessions }).then(() => {}));
    // A revoked key's secret is of no use: "Copy it now" would hand out a key that fails.
    if (this.fresh?.id === key.id) this.fresh = null;
  }

  private show(id: string, key: string, name: string, note: string) {
    this.fresh = { id, key, name, note };
    this.copied = false;
    void this.updateComplete.then(() =>
      this.renderRoot.querySelector<HTMLInputElement>('input[aria-label="New API key"]')?.focus(),
    );
  }

  private async copy() {
    if (!this.fresh) return;
    try {
      await navigator.clipboard.writeText(this.fresh.key);
    } catch {
      // No clipboard permission: the key stays selected for Ctrl+C.
      this.renderRoot.querySelector<HTMLInputElement>('input[aria-label="New API key"]')?.select();
      document.execCommand?.('copy');
    }
    this.copied = true;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'keys-page': KeysPage;
  }
}
