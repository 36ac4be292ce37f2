import { css, html, nothing, type PropertyValues } from 'lit';
import { state } from 'lit/decorators.js';
import { type AuditQuery, ConsoleApiError } from '../api.js';
import type { ConsoleAuditEntry } from '../../../contract/console.js';
import { AUDIT_ACTIONS, auditDetail, when } from '../format.js';
import { field } from '../form.js';
import { ConsolePage } from './page.js';

/** The filters, in the page's address so that a search can be shared (decision 719). */
const FILTERS = ['actor', 'action', 'start', 'end'] as const;
/** The actions by their words, for the "What" list. */
const ACTIONS = Object.entries(AUDIT_ACTIONS).sort((a, b) => a[1].localeCompare(b[1]));

/** Who did what, when: every admin action, sign-ins and what the CLI and start-up flags changed. */
export class AuditPage extends ConsolePage {
  static styles = [
    ...ConsolePage.styles,
    css`
    td.when { white-space: nowrap; }
    td .detail { color: var(--c-muted); font-size: 13px; overflow-wrap: anywhere; }
    td.what { overflow-wrap: anywhere; }
    .filters { display: flex; flex-wrap: wrap; gap: 12px; align-items: end; }
    .filters label { flex: 1 1 160px; }
    .filters select { width: 100%; }
    /* A phone reads each entry as what happened, then when, who and from where on one line. */
    @media (max-width: 640px) {
      table.records tr { grid-template-columns: auto auto minmax(0, 1fr); gap: 2px 0; }
      table.records td.what { grid-row: 1; }
      table.records td.when, table.records td.who, table.records td.address { grid-column: auto; grid-row: 2; color: var(--c-muted); font-size: 13px; }
      table.records td.who::before, table.records td.address::before { content: '·' / ''; padding: 0 6px; }
    }
  `,
  ];

  @state() private entries: ConsoleAuditEntry[] = [];
  @state() private next: number | null = null;
  @state() private loading = true;
  @state() private error = '';
  /** The filters the entries shown were read with: a new address with others reads again. */
  private loadedFor: string | null = null;
  /** Who the "Who" box offers: today's admins, and the command line and start-up. */
  @state() private actors = ['cli', 'start-up'];

  connectedCallback() {
    super.connectedCallback();
    this.api.admins().then(
      (list) => (this.actors = [...list.admins.map((a) => a.username), 'cli', 'start-up']),
      // The box takes any name typed: without the list it offers fewer.
      () => {},
    );
  }

  private query(): AuditQuery {
    return Object.fromEntries(FILTERS.flatMap((k) => (this.params.get(k) ? [[k, this.params.get(k)!]] : [])));
  }

  protected willUpdate(changed: PropertyValues<this>) {
    const key = new URLSearchParams(this.query() as Record<string, string>).toString();
    if (changed.has('params') && key !== this.loadedFor) {
      this.loadedFor = key;
      void this.load();
    }
  }

  private async load(before?: number) {
    this.loading = true;
    const asked = this.loadedFor;
    try {
      const page = await this.api.audit(this.query(), before);
      // A page of other filters, answered after the address changed again, is not shown.
      if (asked !== this.loadedFor) return;
      this.entries = before ? [...this.entries, ...page.entries] : page.entries;
      this.next = page.next_before;
      this.error = '';
    } catch (error) {
      this.error = error instanceof ConsoleApiError ? error.message : 'The audit log could not be loaded.';
    }
    this.loading = false;
  }

  private readonly apply = (event: Event) => {
    event.preventDefault();
    const data = new FormData(event.currentTarget as HTMLFormElement);
    this.navigate(
      'audit',
      Object.fromEntries(FILTERS.map((k) => [k, field(data, k).trim() || undefined])),
      true,
    );
  };

  private filterForm() {
    const p = this.params;
    return html`<form class="card filters" role="search" aria-label="Filter the audit log" @submit=${this.apply} @change=${this.apply}>
      <label>Who <input name="actor" list="actors" .value=${p.get('actor') ?? ''} maxlength="200" autocomplete="off" autocapitalize="none" spellcheck="false" placeholder="A username, cli or start-up"></label>
      <datalist id="actors">${this.actors.map((a) => html`<option value=${a}></option>`)}</datalist>
      <label>What <select name="action">
        <option value="">Every action</option>
        ${ACTIONS.map(([action, words]) => html`<option value=${action} ?selected=${p.get('action') === action}>${words}</option>`)}
      </select></label>
      <label>From <input type="date" name="start" .value=${p.get('start') ?? ''}></label>
      <label>To <input type="date" name="end" .value=${p.get('end') ?? ''}></label>
      <button type="submit">Filter</button>
    </form>`;
  }

  render() {
    const filtered = FILTERS.some((k) => this.params.get(k));
    return html`<div class="stack">
      <div class="page-head"><div><h1 tabindex="-1">Audit log</h1><p class="muted">Every change made in the console, by the command line or by start-up flags, every sign-in and every file downloaded. Newest first; days in UTC. The address keeps the filters, to share a search.</p></div></div>
      ${this.filterForm()}
      ${this.error ? html`<p class="notice error" role="alert">${this.error}</p>` : nothing}
      <div class="card table-wrap" tabindex="0" role="region" aria-label="Audit log entries"><table class="records">
        <caption class="visually-hidden">Audit log</caption>
        <thead><tr><th scope="col">When</th><th scope="col">Who</th><th scope="col">What</th><th scope="col">Address</th></tr></thead>
        <tbody>${this.entries.map(
          (e) => html`<tr>
          <td class="when">${when(e.at)}</td>
          <td class="who">${e.actor}</td>
          <td class="what">${AUDIT_ACTIONS[e.action] ?? e.action}${e.target ? html` <code>${e.target}</code>` : nothing}${e.project_id && e.project_id !== e.target ? html` in <code>${e.project_id}</code>` : nothing}
            ${e.detail && Object.keys(e.detail).length ? html`<div class="detail">${auditDetail(e.detail)}</div>` : nothing}</td>
          <td class="address">${e.address ?? '—'}</td>
        </tr>`,
        )}</tbody>
      </table>
      ${!this.loading && !this.entries.length ? html`<p class="muted">${filtered ? 'No entry matches these filters.' : 'Nothing yet.'}</p>` : nothing}</div>
      <p class="visually-hidden" role="status">${this.loading || !filtered ? '' : matched(this.entries.length, !!this.next)}</p>
      ${this.loading ? html`<p class="muted" role="status">Loading…</p>` : this.next ? html`<div><button @click=${() => this.load(this.next!)}>Load older entries</button></div>` : nothing}
    </div>`;
  }
}

/**
 * What a filter found, for a screen reader, which heard nothing once the rows changed; the
 * status line is there before its words, so they are read.
 */
const matched = (n: number, more: boolean) =>
  n
    ? `${n}${more ? ' or more' : ''} ${n === 1 && !more ? 'entry matches' : 'entries match'} these filters.`
    : 'No entry matches these filters.';

declare global {
  interface HTMLElementTagNameMap {
    'audit-page': AuditPage;
  }
}
