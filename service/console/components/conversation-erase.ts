import { LitElement, css, html, nothing } from 'lit';
import { property, state } from 'lit/decorators.js';
import { type ConsoleApi, attempt } from '../api.js';
import type { ConsoleOwnerErasure, ConsoleThreadHead } from '../../../contract/console.js';
import { base, tokens } from '../styles.js';

const plural = (n: number, one: string, many = `${one}s`) =>
  `${n.toLocaleString('en')} ${n === 1 ? one : many}`;

/** What was removed, as one sentence for the page's status line. */
function erasedText(erased: ConsoleOwnerErasure): string {
  return `Erased the visitor's data: ${plural(erased.conversations, 'conversation')}, ${plural(erased.feedback, 'other reaction')}, ${plural(erased.sessions, 'session')} and ${plural(erased.files, 'unused file')}.`;
}

/** A conversation left the console: this thread, or every thread of an owner. */
export class ConversationGoneEvent extends Event {
  constructor(
    readonly threadId: string,
    readonly ownerKey: string | null,
    readonly message: string,
  ) {
    super('conversation-gone', { bubbles: true, composed: true });
  }
}

type Pending = { kind: 'conversation' } | { kind: 'owner'; conversations: number };

/**
 * The conversation review's two erasures, each after a confirmation that names what goes: the
 * conversation (decisions 599, 600), or everything held for its owner (decisions 601, 602; a
 * public or anonymous visitor has no owner, so only the first).
 */
export class ConversationErase extends LitElement {
  static styles = [
    tokens,
    base,
    css`
      :host { display: block; }
      dialog p { margin: 0; }
    `,
  ];

  @property({ attribute: false }) api!: ConsoleApi;
  @property() project = '';
  @property({ attribute: false }) thread!: ConsoleThreadHead;
  @state() private pending: Pending | null = null;
  @state() private busy = false;
  @state() private error = '';

  render() {
    const anonymous = this.thread.owner_key === '-';
    return html`<div class="row">
        <button type="button" class="small danger" @click=${this.askDelete} ?disabled=${this.busy}>Delete conversation</button>
        ${anonymous ? nothing : html`<button type="button" class="small danger" @click=${this.askErase} ?disabled=${this.busy}>Erase this visitor's data</button>`}
      </div>
      ${this.error ? html`<p class="notice error" role="alert">${this.error}</p>` : nothing}
      <dialog aria-labelledby="erase-title" @close=${() => (this.pending = null)}>${this.dialog()}</dialog>`;
  }

  private dialog() {
    const p = this.pending;
    if (p?.kind === 'conversation')
      return html`<form class="stack" method="dialog" @submit=${this.deleteConversation}>
        <h2 id="erase-title">Delete this conversation?</h2>
        <p>“${this.thread.title}” goes for good: its messages, the files the visitor attached and the feedback on its answers. An answer still being written stops. The visitor's chat shows the conversation gone. The activity figures keep counting its messages.</p>
        <div class="row"><span class="spacer"></span><button type="button" @click=${this.close}>Cancel</button><button class="danger solid" type="submit">Delete conversation</button></div>
      </form>`;
    if (p?.kind === 'owner')
      return html`<form class="stack" method="dialog" @submit=${this.eraseOwner}>
        <h2 id="erase-title">Erase this visitor's data?</h2>
        <p>Everything held for owner key <code>${this.thread.owner_key.slice(0, 10)}…</code> goes for good: their ${plural(p.conversations, 'conversation')} with messages, files and feedback, their feedback on other answers, and their sessions (an open chat needs a new one from your site). Answers still being written stop. The activity figures keep their counts without naming them.</p>
        <div class="row"><span class="spacer"></span><button type="button" @click=${this.close}>Cancel</button><button class="danger solid" type="submit">Erase ${plural(p.conversations, 'conversation')}</button></div>
      </form>`;
    return nothing;
  }

  private close = () => this.renderRoot.querySelector('dialog')?.close();

  private open(pending: Pending) {
    this.pending = pending;
    void this.updateComplete.then(() => this.renderRoot.querySelector('dialog')?.showModal());
  }

  private askDelete = () => this.open({ kind: 'conversation' });

  private askErase = () =>
    this.run(async () => {
      const owner = await this.api.conversationOwner(this.project, this.thread.id);
      this.open({ kind: 'owner', conversations: owner.conversations });
    });

  private deleteConversation = () =>
    this.run(async () => {
      await this.api.deleteConversation(this.project, this.thread.id);
      this.dispatchEvent(new ConversationGoneEvent(this.thread.id, null, `Deleted “${this.thread.title}”.`));
    });

  private eraseOwner = () =>
    this.run(async () => {
      const erased = await this.api.eraseOwner(this.project, this.thread.id);
      this.dispatchEvent(new ConversationGoneEvent(this.thread.id, erased.owner_key, erasedText(erased)));
    });

  private async run(action: () => Promise<void>) {
    this.busy = true;
    await attempt(action, (e) => (this.error = e), 'That did not work; nothing was erased.');
    this.busy = false;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'conversation-erase': ConversationErase;
  }
  interface HTMLElementEventMap {
    'conversation-gone': ConversationGoneEvent;
  }
}
