import { css, html, nothing } from 'lit';
import { state } from 'lit/decorators.js';
import { ConsoleApiError, attempt } from '../api.js';
import type { ConsoleAdmin, ConsoleAdmins, ConsoleRole } from '../../../contract/console.js';
import { ago, when } from '../format.js';
import { field } from '../form.js';
import { ConsolePage } from './page.js';

const ROLES: Record<ConsoleRole, string> = {
  admin: 'Admin: changes anything',
  viewer: 'Viewer: reads, changes nothing',
};

/**
 * Admins (decisions 689-691, 718): who can sign in to the console and with which role, adding one
 * (the password set once by the adder, its rules shown), a new role, removing one (confirmed;
 * never the last admin), and, in `<own-account>`, one's own password and other sessions. A
 * viewer reads the list and keeps their own account.
 */
export class AdminsPage extends ConsolePage {
  static styles = [
    ...ConsolePage.styles,
    css`
    form { max-width: 480px; }
    td.actions { white-space: nowrap; text-align: end; }
    td.name { overflow-wrap: anywhere; font-weight: 600; }
    td.role select { width: auto; }
    @media (max-width: 640px) {
      table.records td.name { grid-column: 1; }
      table.records td.actions { grid-column: 2; grid-row: 1; }
      table.records td.actions:empty { display: none; }
    }
  `,
  ];

  @state() private list: ConsoleAdmins | null = null;
  @state() private error = '';
  @state() private done = '';
  @state() private pending: ConsoleAdmin | null = null;

  connectedCallback() {
    super.connectedCallback();
    void this.load();
  }

  private async load() {
    try {
      this.list = await this.api.admins();
    } catch (error) {
      this.error = error instanceof ConsoleApiError ? error.message : 'The admins could not be loaded.';
    }
  }

  render() {
    const you = this.list?.admins.find((a) => a.you);
    return html`<div class="stack">
      <div class="page-head"><div><h1 tabindex="-1">Admins</h1><p class="muted">Everyone here can sign in to this console. An admin can change anything in it; a viewer reads conversations, sources, activity and notifications, and changes nothing. What each does is in the Audit log.</p></div></div>
      ${this.error ? html`<p class="notice error" role="alert">${this.error}</p>` : nothing}
      <p class="visually-hidden" role="status">${this.done}</p>
      ${this.done ? html`<p class="notice ok" aria-hidden="true">${this.done}</p>` : nothing}
      ${this.list === null ? html`<p class="muted" role="status">Loading admins…</p>` : this.table(this.list.admins)}
      ${this.list && !this.viewer ? this.addForm(this.list.min_password_chars) : nothing}
      ${you && this.list ? html`<own-account .api=${this.api} .username=${you.username} .minPasswordChars=${this.list.min_password_chars}></own-account>` : nothing}
      ${this.dialog()}
    </div>`;
  }

  private table(admins: ConsoleAdmin[]) {
    const withRole = admins.filter((a) => a.role === 'admin');
    // The only admin is neither removed nor made a viewer: nobody could change anything then.
    const last = withRole.length === 1 ? withRole[0] : null;
    return html`<div class="card table-wrap" tabindex="0" role="region" aria-label="Console admins"><table class="records">
      <caption class="visually-hidden">Console admins</caption>
      <thead><tr><th scope="col">Username</th><th scope="col">Role</th><th scope="col">Added</th><th scope="col">Last sign-in</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
      <tbody>${admins.map(
        (a) => html`<tr>
        <td class="name">${a.username}${a.you ? html` <span class="pill">you</span>` : nothing}</td>
        <td class="role" data-label="Role">${this.roleCell(a, a === last)}</td>
        <td data-label="Added">${when(a.created_at)}</td>
        <td data-label="Last sign-in" title=${a.last_sign_in_at ? when(a.last_sign_in_at) : nothing}>${ago(a.last_sign_in_at)}</td>
        <td class="actions">${a === last || this.viewer ? nothing : html`<button class="small danger" aria-label="Remove ${a.username}" @click=${() => this.ask(a)}>Remove</button>`}</td>
      </tr>`,
      )}</tbody>
    </table>
    ${last && !this.viewer ? html`<p class="muted" id="last-admin">${last.you ? 'You are' : `${last.username} is`} the only admin, so ${last.you ? 'you' : 'they'} cannot be removed or made a viewer: make another one an admin first.</p>` : nothing}</div>`;
  }

  /** A viewer reads each role; an admin changes it in place (the last admin's stays, and says why). */
  private roleCell(a: ConsoleAdmin, last: boolean) {
    if (this.viewer) return a.role === 'admin' ? 'Admin' : 'Viewer';
    return html`<select aria-label="Role of ${a.username}" ?disabled=${last} aria-describedby=${last ? 'last-admin' : nothing}
      @change=${(e: Event) => this.changeRole(a, (e.target as HTMLSelectElement).value as ConsoleRole)}>
      ${(Object.keys(ROLES) as ConsoleRole[]).map((r) => html`<option value=${r} ?selected=${a.role === r}>${r === 'admin' ? 'Admin' : 'Viewer'}</option>`)}
    </select>`;
  }

  private addForm(min: number) {
    return html`<section class="card stack" aria-labelledby="add-admin-title">
      <h2 id="add-admin-title">Add an admin</h2>
      <form class="stack" @submit=${this.add}>
        <label>Username <span class="hint" id="new-name-hint">Letters, digits and . _ @ -</span><input name="username" required maxlength="64" pattern="[A-Za-z0-9][A-Za-z0-9._@\\-]*" autocomplete="off" autocapitalize="none" spellcheck="false" aria-describedby="new-name-hint"></label>
        <label>Role <select name="role">${(Object.keys(ROLES) as ConsoleRole[]).map((r) => html`<option value=${r}>${ROLES[r]}</option>`)}</select></label>
        <label>Password <span class="hint" id="new-password-hint">At least ${min} characters. Hand it over in person or through a password manager; they can change it once signed in.</span><input name="password" type="password" required minlength=${min} autocomplete="new-password" aria-describedby="new-password-hint"></label>
        <div><button class="primary" type="submit">Add admin</button></div>
      </form>
    </section>`;
  }

  private dialog() {
    const a = this.pending;
    return html`<dialog aria-labelledby="remove-title" @close=${() => {
      this.pending = null;
    }}>${
      a
        ? html`<form class="stack" method="dialog" @submit=${this.removeAdmin}>
        <h2 id="remove-title">${a.you ? 'Remove yourself?' : `Remove ${a.username}?`}</h2>
        <p>${a.you ? 'You are' : `${a.username} is`} signed out at once, on every device, and can no longer sign in. What ${a.you ? 'you' : 'they'} did stays in the Audit log.</p>
        <div class="row"><span class="spacer"></span><button type="button" @click=${this.closeDialog}>Cancel</button><button class="danger solid" type="submit">Remove admin</button></div>
      </form>`
        : nothing
    }</dialog>`;
  }

  private ask(admin: ConsoleAdmin) {
    this.pending = admin;
    this.showDialog();
  }

  private async run(action: () => Promise<string>) {
    this.done = '';
    await attempt(
      async () => (this.done = await action()),
      (e) => (this.error = e),
    );
    await this.load();
  }

  private async add(event: SubmitEvent) {
    event.preventDefault();
    const form = event.target as HTMLFormElement;
    const data = new FormData(form);
    await this.run(async () => {
      const role = field(data, 'role') as ConsoleRole;
      const added = await this.api.addAdmin(field(data, 'username'), field(data, 'password'), role);
      form.reset();
      return `Added ${added.username} as ${role === 'admin' ? 'an admin' : 'a viewer'}. They can sign in with the password you set.`;
    });
  }

  private async changeRole(admin: ConsoleAdmin, role: ConsoleRole) {
    await this.run(async () => {
      await this.api.setRole(admin.username, role);
      // One's own new role changes what every page offers: the console starts again with it.
      if (admin.you) location.reload();
      return `${admin.username} is now ${role === 'admin' ? 'an admin' : 'a viewer'}, from their next click in the console.`;
    });
  }

  private async removeAdmin() {
    const admin = this.pending!;
    await this.run(async () => {
      await this.api.removeAdmin(admin.username);
      // Removing oneself ends one's own session: the sign-in form follows.
      if (admin.you) this.api.onSignedOut();
      return `Removed ${admin.username}; their console sessions have ended.`;
    });
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'admins-page': AdminsPage;
  }
}
