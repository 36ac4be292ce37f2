import { LitElement, css, html, nothing } from 'lit';
import { property, state } from 'lit/decorators.js';
import { type ConsoleApi, attempt } from '../api.js';
import { field } from '../form.js';
import { base, tokens } from '../styles.js';

/**
 * The signed-in admin's own account, on the Admins page (decision 690): a new password (the
 * current one first; their other sessions end), and "Sign out everywhere else" for a lost or
 * shared computer.
 */
export class OwnAccount extends LitElement {
  static styles = [tokens, base, css`form { max-width: 480px; } .sessions { gap: 8px; }`];

  @property({ attribute: false }) api!: ConsoleApi;
  @property({ attribute: false }) username = '';
  @property({ attribute: false }) minPasswordChars = 12;
  @state() private error = '';
  @state() private done = '';

  render() {
    const min = this.minPasswordChars;
    return html`<section class="card stack" aria-labelledby="own-title">
      <h2 id="own-title">Your account</h2>
      ${this.error ? html`<p class="notice error" role="alert">${this.error}</p>` : nothing}
      <p class="visually-hidden" role="status">${this.done}</p>
      ${this.done ? html`<p class="notice ok" aria-hidden="true">${this.done}</p>` : nothing}
      <form class="stack" @submit=${this.changePassword}>
        <h3>Change your password</h3>
        <input type="text" name="username" autocomplete="username" .value=${this.username} hidden>
        <label>Current password <input name="current" type="password" required autocomplete="current-password"></label>
        <label>New password <span class="hint" id="own-new-hint">At least ${min} characters. Your other sessions are signed out.</span><input name="next" type="password" required minlength=${min} autocomplete="new-password" aria-describedby="own-new-hint"></label>
        <div><button class="primary" type="submit">Change password</button></div>
      </form>
      <div class="stack sessions">
        <h3>Other sessions</h3>
        <p class="muted">Signed in on a computer you no longer have, or a shared one? End every console session of yours but this one.</p>
        <div><button @click=${this.signOutOthers}>Sign out everywhere else</button></div>
      </div>
    </section>`;
  }

  private async run(action: () => Promise<string>) {
    this.done = '';
    await attempt(
      async () => (this.done = await action()),
      (e) => (this.error = e),
    );
  }

  private async changePassword(event: SubmitEvent) {
    event.preventDefault();
    const form = event.target as HTMLFormElement;
    const data = new FormData(form);
    await this.run(async () => {
      const { sessions_ended } = await this.api.changePassword(field(data, 'current'), field(data, 'next'));
      form.reset();
      return `Password changed.${sessions_ended ? ` ${sessionsEnded(sessions_ended)}` : ''}`;
    });
  }

  private async signOutOthers() {
    await this.run(async () => {
      const { sessions_ended } = await this.api.endOtherSessions();
      return sessions_ended ? sessionsEnded(sessions_ended) : 'You had no other sessions.';
    });
  }
}

const sessionsEnded = (n: number) =>
  n === 1 ? 'Your other session was signed out.' : `Your ${n} other sessions were signed out.`;

declare global {
  interface HTMLElementTagNameMap {
    'own-account': OwnAccount;
  }
}
