import { css, html, nothing } from 'lit';
import { state } from 'lit/decorators.js';
import { ConsoleApiError } from '../api.js';
import type { ConsoleAuditEntry } from '../../../contract/console.js';
import { AUDIT_ACTIONS, auditDetail, when } from '../format.js';
import { ConsolePage } from './page.js';

/** Who did what, when: every admin action, sign-ins and what the CLI and start-up flags changed. */
export class AuditPage extends ConsolePage {
  static styles = [
    ...ConsolePage.styles,
    css`
    td.when { white-space: nowrap; }
    td .detail { color: var(--c-muted); font-size: 13px; overflow-wrap: anywhere; }
    td.what { overflow-wrap: anywhere; }
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

  connectedCallback() {
    super.connectedCallback();
    void this.load();
  }

  private async load(before?: number) {
    this.loading = true;
    try {
      const page = await this.api.audit(before);
      this.entries = before ? [...this.entries, ...page.entries] : page.entries;
      this.next = page.next_before;
      this.error = '';
    } catch (error) {
      this.error = error instanceof ConsoleApiError ? error.message : 'The audit log could not be loaded.';
    }
    this.loading = false;
  }

  render() {
    return html`<div class="stack">
      <div class="page-head"><div><h1 tabindex="-1">Audit log</h1><p class="muted">Every change made in the console, by the command line or by start-up flags, and every sign-in. Newest first.</p></div></div>
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
      ${!this.loading && !this.entries.length ? html`<p class="muted">Nothing yet.</p>` : nothing}</div>
      ${this.loading ? html`<p class="muted" role="status">Loading…</p>` : this.next ? html`<div><button @click=${() => this.load(this.next!)}>Load older entries</button></div>` : nothing}
    </div>`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'audit-page': AuditPage;
  }
}
