import { LitElement, css, html } from 'lit';
import { property, state } from 'lit/decorators.js';
import { type ConsoleApi, ConsoleApiError } from '../api.js';
import { base, tokens } from '../styles.js';
import { field } from '../form.js';

/** The sign-in form: username and password, errors said in words (wrong, too many tries, unreachable). */
export class ConsoleSignIn extends LitElement {
  static styles = [
    tokens,
    base,
    css`
    :host { display: grid; place-items: center; min-height: 100dvh; padding: 24px 16px; background: var(--c-bg); }
    main { width: min(380px, 100%); }
    form { display: grid; gap: 16px; padding: 28px 24px; }
    .brand { display: flex; gap: 10px; align-items: center; margin-bottom: 20px; justify-content: center; }
    .logo { width: 32px; height: 32px; border-radius: 9px; background: var(--c-accent); color: var(--c-on-accent); display: grid; place-items: center; font-weight: 700; }
    button.primary { min-height: 40px; }
    p.foot { margin-top: 16px; text-align: center; font-size: 13px; }
    /* The command stays whole: broken at its hyphen it read as two words. */
    p.foot code { white-space: nowrap; }
  `,
  ];

  @property({ attribute: false }) api!: ConsoleApi;
  @state() private error = '';
  @state() private busy = false;

  render() {
    return html`<main>
      <div class="brand"><span class="logo" aria-hidden="true">ac</span><h1>agent-chat console</h1></div>
      <form class="card" @submit=${this.submit} novalidate>
        <h2>Sign in</h2>
        <label>Username <input name="username" autocomplete="username" required autocapitalize="none" spellcheck="false"></label>
        <label>Password <input name="password" type="password" autocomplete="current-password" required></label>
        ${this.error ? html`<p class="notice error" role="alert">${this.error}</p>` : null}
        <button class="primary" type="submit" ?disabled=${this.busy}>Sign in</button>
      </form>
      <p class="foot muted">No account yet? On the service's machine: <code>agent-chat-service admin add NAME</code></p>
    </main>`;
  }

  private async submit(event: SubmitEvent) {
    event.preventDefault();
    const form = event.target as HTMLFormElement;
    const data = new FormData(form);
    const username = field(data, 'username').trim();
    const password = field(data, 'password');
    if (!username || !password) {
      this.error = 'Enter your username and password.';
      return;
    }
    this.busy = true;
    this.error = '';
    try {
      const session = await this.api.signIn(username, password);
      this.dispatchEvent(new CustomEvent('signed-in', { detail: session.username }));
    } catch (error) {
      this.error = error instanceof ConsoleApiError ? error.message : 'Sign-in failed.';
      (form.elements.namedItem('password') as HTMLInputElement).select();
    } finally {
      this.busy = false;
    }
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'console-sign-in': ConsoleSignIn;
  }
}
