import { css, html, nothing, type TemplateResult } from 'lit';
import { state } from 'lit/decorators.js';
import { ConsoleApiError } from '../api.js';
import type {
  ConsoleIntegration,
  ConsoleStaleSource,
  ConsoleThread,
  ConsoleThreadDetail,
} from '../../../contract/console.js';
import { ago, when } from '../format.js';
import { thumbDown, thumbUp } from '../icons.js';
import { ConsolePage, inPlace, pageLink, readOnlyNote } from './page.js';
import { routeHref } from '../router.js';
import { field } from '../form.js';
import type { ConversationGoneEvent } from './conversation-erase.js';

const FLAGS = [
  { key: 'downvoted', label: 'Not helpful' },
  { key: 'uncertain', label: 'Uncertain' },
  { key: 'handoff', label: 'Handoff' },
  { key: 'error', label: 'Failed answer' },
  { key: 'tool_used', label: 'Tool used' },
  { key: 'stale_sources', label: 'Sources changed' },
] as const;
const FILTERS = ['q', 'integration_id', 'start', 'end', ...FLAGS.map((f) => f.key)];
const REASONS: Record<string, string> = {
  incorrect: 'Incorrect',
  irrelevant: 'Irrelevant',
  unaddressed: 'Did not answer the question',
};

const safeUrl = (url: string) => (/^https?:\/\//i.test(url) ? url : null);
const short = (ownerKey: string) => (ownerKey === '-' ? 'anonymous' : `${ownerKey.slice(0, 10)}…`);
/** The visitor's question before message `i`, as the chat's search took it for a follow-up (decision 450). */
const earlierOf = (messages: ConsoleThreadDetail['messages'], i: number): { earlier?: string } => {
  const before = messages
    .slice(0, i)
    .reverse()
    .find((m) => m.role === 'user')
    ?.content.trim();
  return before ? { earlier: before.slice(0, 2000) } : {};
};
const pretty = (value: unknown) => (value === undefined ? '' : JSON.stringify(value, null, 2));

type RenderAnswer = (text: string) => TemplateResult;
let markdown: Promise<RenderAnswer | null> | undefined;
/** The widget's markdown renderer, fetched with the first conversation opened (not in the first load); null if it cannot load. */
const loadMarkdown = () =>
  (markdown ??= import('../markdown.js').then(
    (m) => m.renderAnswer,
    () => {
      markdown = undefined;
      return null;
    },
  ));

/** The list's search, flags, integration and days, as a form whose every change applies. */
const filterForm = (p: URLSearchParams, integrations: ConsoleIntegration[], apply: (event: Event) => void) =>
  html`<form class="card filters" role="search" @submit=${apply} @change=${apply}>
      <div class="row">
        <label class="visually-hidden" for="q">Search conversations</label>
        <input id="q" name="q" type="search" placeholder="Search titles and messages" .value=${p.get('q') ?? ''} maxlength="200">
        <button type="submit">Search</button>
      </div>
      <fieldset class="chips"><legend>Show only</legend>
        ${FLAGS.map((f) => html`<label class="chip"><input type="checkbox" name=${f.key} ?checked=${p.get(f.key) === '1'}>${f.key === 'downvoted' ? thumbDown : nothing}${f.label}</label>`)}
      </fieldset>
      <div class="row facets">
        <label>Integration <select name="integration_id">
          <option value="">All integrations</option>
          ${integrations.map((i) => html`<option value=${i.id} ?selected=${p.get('integration_id') === i.id}>${i.name}</option>`)}
        </select></label>
        <label>From <input type="date" name="start" .value=${p.get('start') ?? ''}></label>
        <label>To <input type="date" name="end" .value=${p.get('end') ?? ''}></label>
      </div>
    </form>`;

/** The downloads of what the filters show: every visitor's words in one file, an admin's to take (decision 718). */
const downloads = (url: (format: 'csv' | 'jsonl') => string) =>
  html`<div class="row downloads" role="group" aria-label="Download the conversations these filters show">
    <a class="button" href=${url('csv')} download>Download CSV</a>
    <a class="button" href=${url('jsonl')} download>Download JSON Lines</a>
  </div>`;

/** Every owner's threads, filtered and searched; one thread with its sources, tool calls and feedback. */
export class ConversationsPage extends ConsolePage {
  static styles = [
    ...ConsolePage.styles,
    css`
    .filters { display: grid; gap: 12px; }
    .stale { display: inline-block; margin-inline-start: 4px; padding: 0 8px; border-radius: 999px; font-size: 12px; background: var(--c-warn-bg); color: var(--c-warn); }
    .filters .row { align-items: end; }
    .filters input[type='search'] { flex: 1; min-width: 200px; }
    .chips { display: flex; flex-wrap: wrap; gap: 6px; border: 0; padding: 0; margin: 0; }
    .chips legend { font-weight: 550; margin-bottom: 4px; padding: 0; }
    .chip { display: inline-flex; align-items: center; gap: 6px; border: 1px solid var(--c-border); border-radius: 999px; padding: 4px 12px; font-weight: 500; cursor: pointer; background: var(--c-surface); }
    .chip:has(input:checked) { background: color-mix(in srgb, var(--c-accent) 14%, transparent); border-color: var(--c-accent); color: var(--c-accent); }
    .chip:has(input:focus-visible) { outline: 2px solid var(--c-focus); outline-offset: 2px; }
    /* On a phone the integration takes a row and the two dates share the next. */
    @media (max-width: 640px) {
      .facets label { flex: 1 1 140px; }
      .facets label:first-child { flex-basis: 100%; }
      .facets select, .facets input { width: 100%; }
    }
    .layout { display: grid; grid-template-columns: minmax(280px, 400px) 1fr; gap: 16px; align-items: start; }
    .layout.single { grid-template-columns: 1fr; }
    @media (max-width: 1000px) { .layout { grid-template-columns: 1fr; } .layout.open .list { display: none; } }
    @media (min-width: 1001px) { .back { display: none; } }
    .list { padding: 6px; }
    .list ul { list-style: none; margin: 0; padding: 0; }
    .list li + li { border-top: 1px solid var(--c-border); }
    .list a { display: grid; gap: 4px; padding: 10px; border-radius: 8px; color: var(--c-text); text-decoration: none; }
    .list a:hover { background: var(--c-raised); }
    .list a[aria-current='true'] { background: color-mix(in srgb, var(--c-accent) 12%, transparent); }
    .title { font-weight: 600; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
    .meta { display: flex; flex-wrap: wrap; gap: 6px; align-items: center; font-size: 12.5px; color: var(--c-muted); }
    /* The open conversation's line runs as text: as flex items its words split into blocks, and a
       wrapped line began with a separator (each dot is tied to the word before it). */
    p.meta { display: block; }
    .owner { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 12px; overflow-wrap: anywhere; }
    .thread { display: grid; gap: 14px; }
    .message { display: grid; gap: 8px; padding: 12px 14px; border-radius: 10px; border: 1px solid var(--c-border); }
    .message.user { background: var(--c-raised); }
    .retrieves { margin-inline-start: auto; font-size: 13px; }
    .who { font-size: 12px; font-weight: 650; text-transform: uppercase; letter-spacing: 0.04em; color: var(--c-muted); }
    .content { white-space: pre-wrap; overflow-wrap: anywhere; }
    /* An answer's markdown, as the widget renders it (src/markdown/render.ts), in the console's look. */
    .markdown { white-space: normal; overflow-wrap: break-word; line-height: 1.6; }
    .markdown > :first-child { margin-top: 0; }
    .markdown > :last-child { margin-bottom: 0; }
    .markdown p, .markdown ul, .markdown ol, .markdown blockquote, .markdown .table-wrap, .markdown .code-block { margin: 0 0 0.6em; }
    .markdown h3 { margin: 0.8em 0 0.4em; line-height: 1.3; font-size: 1em; }
    .markdown .h1 { font-size: 1.25em; }
    .markdown .h2 { font-size: 1.12em; }
    .markdown ul, .markdown ol { padding-inline-start: 1.4em; }
    .markdown :not(pre) > code { background: var(--c-code); border: 1px solid var(--c-border); border-radius: 4px; padding: 0 0.3em; }
    .markdown .code-block { border: 1px solid var(--c-border); border-radius: 8px; background: var(--c-code); min-width: 0; }
    .markdown .code-bar { display: flex; align-items: center; justify-content: space-between; gap: 8px; padding: 2px 4px 2px 10px; font-size: 12px; color: var(--c-muted); border-bottom: 1px solid var(--c-border); }
    .markdown .code-lang { margin-inline-end: auto; }
    .markdown .copy, .markdown .wrap { min-height: 26px; padding: 0 8px; font-size: 12px; font-weight: 500; border-color: transparent; background: none; }
    .markdown .copy:hover, .markdown .wrap:hover, .markdown .wrap[aria-pressed='true'] { border-color: var(--c-border); }
    .markdown .code-block[data-wrap] pre { white-space: pre-wrap; overflow-wrap: anywhere; }
    .copy:not([data-copied]) .copied, .copy[data-copied] .copy-label { display: none; }
    .markdown pre { border: 0; border-radius: 0 0 8px 8px; direction: ltr; text-align: left; }
    .markdown blockquote { border-inline-start: 3px solid var(--c-border); padding-inline-start: 10px; color: var(--c-muted); }
    .markdown table { width: auto; font-size: 13px; }
    .markdown th, .markdown td { border: 1px solid var(--c-border); padding: 4px 8px; }
    .markdown thead th { text-transform: none; letter-spacing: 0; font-size: 13px; color: var(--c-text); }
    .markdown [align='center'] { text-align: center; }
    .markdown [align='right'] { text-align: end; }
    .markdown .raw, .markdown .plain { white-space: pre-wrap; }
    .markdown .overflow-notice { font-size: 13px; color: var(--c-muted); font-style: italic; }
    .extra { display: grid; gap: 6px; font-size: 13px; }
    .extra h3 { font-size: 12px; color: var(--c-muted); text-transform: uppercase; letter-spacing: 0.04em; }
    .extra ol, .extra ul { margin: 0; padding-inline-start: 20px; }
    details summary { cursor: pointer; }
    .feedback { border-inline-start: 3px solid var(--c-border); padding-inline-start: 10px; }
    .feedback.down { border-color: var(--c-danger); }
    .feedback.up { border-color: var(--c-ok); }
    .pill { display: inline-flex; gap: 4px; align-items: center; }
  `,
  ];

  @state() private threads: ConsoleThread[] = [];
  @state() private next: string | null = null;
  @state() private loading = false;
  @state() private error = '';
  @state() private thread: ConsoleThreadDetail | null = null;
  @state() private threadError = '';
  /** What the last erasure removed, said once in the page's status line. */
  @state() private notice = '';
  /** Days conversations are kept after their last message; null: until deleted. */
  @state() private retention: number | null = null;
  /** The markdown renderer, once loaded (answers show as plain text until then, or if it fails). */
  private renderAnswer: RenderAnswer | null = null;
  /** Each answer's rendering, kept while its thread is shown: a page re-render does not lex again. */
  private readonly rendered = new WeakMap<object, TemplateResult>();
  private listKey = '';
  private threadKey = '';
  /** Opened from the list: its title takes the focus when loaded (at 390 px the list's link is gone). */
  private focusTitle = false;

  updated() {
    const filters = new URLSearchParams(
      FILTERS.flatMap((k) => (this.params.get(k) ? [[k, this.params.get(k)!]] : [])),
    );
    const listKey = `${this.project.id}?${filters}`;
    if (listKey !== this.listKey) {
      this.listKey = listKey;
      void this.loadList();
    }
    const threadKey = `${this.project.id}/${this.params.get('thread') ?? ''}`;
    if (threadKey !== this.threadKey) {
      this.threadKey = threadKey;
      void this.loadThread();
    }
  }

  private query(extra: Record<string, string | undefined> = {}) {
    return { ...Object.fromEntries(FILTERS.map((k) => [k, this.params.get(k) ?? undefined])), ...extra };
  }

  private async loadList(cursor?: string) {
    const key = this.listKey;
    this.loading = true;
    try {
      const page = await this.api.conversations(this.project.id, this.query({ cursor }));
      if (key !== this.listKey) return;
      this.threads = cursor ? [...this.threads, ...page.threads] : page.threads;
      this.next = page.next_cursor;
      this.retention = page.retention_days;
      this.error = '';
    } catch (error) {
      this.error =
        error instanceof ConsoleApiError ? error.message : 'The conversations could not be loaded.';
    }
    this.loading = false;
  }

  private async loadThread() {
    const id = this.params.get('thread');
    const key = this.threadKey;
    this.thread = null;
    this.threadError = '';
    if (!id) return;
    try {
      const [thread, renderAnswer] = await Promise.all([
        this.api.conversation(this.project.id, id),
        loadMarkdown(),
      ]);
      this.renderAnswer = renderAnswer;
      if (key !== this.threadKey) return;
      this.thread = thread;
      // Opened from the list: the title takes the focus once it is there, after the fetch.
      if (!this.focusTitle) return;
      this.focusTitle = false;
      await this.updateComplete;
      this.renderRoot.querySelector<HTMLElement>('#thread-title')?.focus();
    } catch (error) {
      if (key === this.threadKey)
        this.threadError =
          error instanceof ConsoleApiError ? error.message : 'The conversation could not be loaded.';
    }
  }

  render() {
    const open = this.params.get('thread');
    return html`<div class="stack">
      <div class="page-head"><div><h1 tabindex="-1">Conversations</h1><p class="muted">What visitors asked, across every owner. Owners appear only as an opaque key.</p>
        <p class="muted" id="retention">${this.retention === null ? 'Kept until deleted: no retention period is set (AGENT_CHAT_CONVERSATION_RETENTION_DAYS).' : `Deleted ${this.retention === 1 ? '1 day' : `${this.retention} days`} after their last message (AGENT_CHAT_CONVERSATION_RETENTION_DAYS).`}</p></div>
        ${this.viewer ? nothing : downloads((format) => this.api.conversationsExportUrl(this.project.id, this.query(), format))}
      </div>
      ${this.viewer ? readOnlyNote('every conversation', 'download them all, delete one or erase a visitor') : nothing}
      ${filterForm(this.params, this.project.integrations, this.applyFilters)}
      <p class="notice" role="status" ?hidden=${!this.notice}>${this.notice}</p>
      ${this.error ? html`<p class="notice error" role="alert">${this.error}</p>` : nothing}
      <div class="layout ${open ? 'open' : 'single'}">
        <section class="card list" aria-label="Conversation list">
          ${
            this.threads.length
              ? html`<ul>${this.threads.map((t) => this.row(t, t.id === open))}</ul>`
              : html`<p class="muted" role="status">${this.loading ? 'Loading…' : 'No conversations match.'}</p>`
          }
          ${this.next ? html`<p><button @click=${() => this.loadList(this.next!)} ?disabled=${this.loading}>Load more</button></p>` : nothing}
        </section>
        ${open ? html`<section class="card thread" aria-labelledby="thread-title">${this.detail()}</section>` : nothing}
      </div>
    </div>`;
  }

  private applyFilters = (event: Event) => {
    event.preventDefault();
    // A keystroke in the search box changes nothing until Search (or Enter).
    if (event.type === 'change' && (event.target as HTMLElement).id === 'q') return;
    const form = event.currentTarget as HTMLFormElement;
    const data = new FormData(form);
    const params: Record<string, string | undefined> = {};
    for (const key of ['q', 'integration_id', 'start', 'end'])
      params[key] = field(data, key).trim() || undefined;
    for (const f of FLAGS) params[f.key] = data.get(f.key) ? '1' : undefined;
    this.navigate('conversations', params, true);
  };

  private row(t: ConsoleThread, current: boolean) {
    return html`<li><a href="conversations?${new URLSearchParams({ project: this.project.id, ...this.clean(this.query({ thread: t.id })) })}" aria-current=${current ? 'true' : 'false'} @click=${(e: MouseEvent) => this.open(e, t.id)}>
      <span class="title">${t.title}</span>
      <span class="meta"><span class="owner" title="Owner key ${t.owner_key}">${short(t.owner_key)}</span>·<span>${t.integration_id}</span>·<span title=${when(t.updated_at)}>${ago(t.updated_at)}</span>·<span>${t.messages === 1 ? '1 message' : `${t.messages} messages`}</span></span>
      <span class="meta">
        ${t.downvotes ? html`<span class="pill bad">${thumbDown} ${t.downvotes}<span class="visually-hidden"> not helpful</span></span>` : nothing}
        ${t.upvotes ? html`<span class="pill ok">${thumbUp} ${t.upvotes}<span class="visually-hidden"> helpful</span></span>` : nothing}
        ${t.uncertain ? html`<span class="pill warn">Uncertain</span>` : nothing}
        ${t.error ? html`<span class="pill bad">Failed answer</span>` : nothing}
        ${t.tool_used ? html`<span class="pill">Tool used</span>` : nothing}
        ${t.handoff_at ? html`<span class="pill warn">Handoff</span>` : nothing}
        ${t.stale_sources ? html`<span class="pill warn" title="An answer cites a page changed or removed since">Sources changed</span>` : nothing}
      </span>
    </a></li>`;
  }

  private clean(query: Record<string, string | undefined>) {
    return Object.fromEntries(Object.entries(query).filter((e): e is [string, string] => !!e[1]));
  }

  private open(event: MouseEvent, id: string | undefined) {
    if (!inPlace(event)) return;
    event.preventDefault();
    this.navigate('conversations', this.query({ thread: id }));
    this.focusTitle = !!id;
  }

  /** A conversation (or every one of an owner) was erased: its rows leave the list, the review closes. */
  private gone = (event: ConversationGoneEvent) => {
    this.threads = this.threads.filter(
      (t) => t.id !== event.threadId && (event.ownerKey === null || t.owner_key !== event.ownerKey),
    );
    this.notice = event.message;
    this.navigate('conversations', this.query({ thread: undefined }));
    void this.updateComplete.then(() => this.focusHeading());
  };

  private answer(message: ConsoleThreadDetail['messages'][number], render: RenderAnswer): TemplateResult {
    let out = this.rendered.get(message);
    if (!out) this.rendered.set(message, (out = render(message.content)));
    return out;
  }

  private detail() {
    if (this.threadError) return html`<p class="notice error" role="alert">${this.threadError}</p>`;
    const t = this.thread;
    if (!t) return html`<p class="muted" role="status">Loading the conversation…</p>`;
    return html`
      <a class="back" href="conversations?${new URLSearchParams({ project: this.project.id, ...this.clean(this.query()) })}" @click=${(e: MouseEvent) => this.open(e, undefined)}>← All conversations</a>
      <div class="stack">
        <h2 id="thread-title" tabindex="-1">${t.title}</h2>
        <p class="meta">${t.owner_key === '-' ? 'Anonymous visitor' : html`Owner key <span class="owner">${t.owner_key}</span>`}&nbsp;· ${t.integration_id}&nbsp;· started ${when(t.created_at)}${t.handoff_at ? html`&nbsp;· <span class="pill warn">Asked for a person ${when(t.handoff_at)}</span>` : nothing}</p>
        ${this.viewer ? nothing : html`<conversation-erase .api=${this.api} project=${this.project.id} .thread=${t} @conversation-gone=${this.gone}></conversation-erase>`}
      </div>
      ${t.messages.map(
        (
          m,
          i,
        ) => html`<article class="message ${m.role}" aria-label="${m.role === 'user' ? 'Visitor' : 'Assistant'}, ${when(m.created_at)}">
        <div class="row"><span class="who">${m.role === 'user' ? 'Visitor' : 'Assistant'}</span><span class="muted">${when(m.created_at)}</span>
          ${
            // The Sources page's search for it: what the docs give it now, where the owner can change that.
            m.role === 'user' && m.content.trim()
              ? pageLink(
                  routeHref('sources', this.project.id, {
                    q: m.content.trim().slice(0, 2000),
                    ...earlierOf(t.messages, i),
                  }),
                  'What this question retrieves',
                  'retrieves',
                )
              : nothing
          }
          ${m.status !== 'complete' ? html`<span class="pill ${m.status === 'error' ? 'bad' : 'warn'}">${m.status === 'error' ? 'failed' : m.status}</span>` : nothing}
          ${m.uncertain ? html`<span class="pill warn">Uncertain</span>` : nothing}</div>
        ${
          !m.content
            ? m.attachments?.length
              ? nothing
              : html`<div class="content"><span class="muted">(no text)</span></div>`
            : m.role === 'assistant' && this.renderAnswer
              ? html`<div class="content markdown">${this.answer(m, this.renderAnswer)}</div>`
              : html`<div class="content">${m.content}</div>`
        }
        ${failureBlock(m)}
        ${m.attachments?.length ? html`<message-files .api=${this.api} project=${this.project.id} .files=${m.attachments}></message-files>` : nothing}
        ${m.sources.length ? html`<div class="extra"><h3>Sources</h3><ol>${m.sources.map((s) => html`<li>${safeUrl(s.source_url) ? html`<a href=${s.source_url} target="_blank" rel="noopener noreferrer">${s.title}${s.section ? ` › ${s.section}` : ''}</a>` : s.title}${staleBadge(m.stale_sources.find((x) => x.source_url === s.source_url))}</li>`)}</ol></div>` : nothing}
        ${
          m.tool_calls.length
            ? html`<div class="extra"><h3>Tool calls</h3>${m.tool_calls.map(
                (c) => html`<details><summary><code>${c.name}</code> · ${c.status}</summary>
          <pre aria-label="Arguments of ${c.name}">${pretty(c.arguments)}</pre>${c.error ? html`<p class="notice error">${c.error}</p>` : c.output !== undefined ? html`<pre aria-label="Output of ${c.name}">${pretty(c.output)}</pre>` : nothing}</details>`,
              )}</div>`
            : nothing
        }
        ${m.activity.length ? html`<div class="extra"><h3>Steps</h3><ul>${m.activity.map((a) => html`<li>${a.summary ?? a.name} <span class="muted">(${a.status})</span></li>`)}</ul></div>` : nothing}
        ${feedbackBlock(m)}
      </article>`,
      )}`;
  }
}

/**
 * Why a failed answer failed (decision 496), as the service stored it: its words and its code,
 * as text (they name settings, never the model server's words); or that it kept no reason.
 */
const failureBlock = (m: ConsoleThreadDetail['messages'][number]) =>
  m.status !== 'error'
    ? nothing
    : m.failure
      ? html`<p class="notice error"><strong>Why it failed:</strong> ${m.failure.message} <span class="failure-code">(code <code>${m.failure.code}</code>)</span></p>`
      : html`<p class="notice error">This answer failed before the service kept reasons: none was stored.</p>`;

/** The feedback visitors gave an answer: the reaction, when and by whom (as a key), the reasons and comment. */
const feedbackBlock = (m: ConsoleThreadDetail['messages'][number]) =>
  m.feedback.length
    ? html`<div class="extra"><h3>Feedback</h3>${m.feedback.map(
        (f) => html`<div class="feedback ${f.reaction === 'upvote' ? 'up' : 'down'}">
          <strong>${f.reaction === 'upvote' ? html`${thumbUp} Helpful` : html`${thumbDown} Not helpful`}</strong> <span class="muted">${when(f.at)} · ${f.voter_key === 'anonymous session' ? f.voter_key : short(f.voter_key)}</span>
          ${
            f.comment
              ? html`<div>${Object.entries(REASONS)
                  .filter(([k]) => f.comment?.[k] === true)
                  .map(([, label]) => html`<span class="pill">${label}</span> `)}
            ${typeof f.comment.issue === 'string' && f.comment.issue ? html`<p class="content">“${f.comment.issue}”</p>` : nothing}</div>`
              : nothing
          }
        </div>`,
      )}</div>`
    : nothing;

/** Says a cited page is no longer what the answer read: it changed, or left the site. */
function staleBadge(stale: ConsoleStaleSource | undefined) {
  if (!stale) return nothing;
  return html` <span class="stale">${stale.page === 'removed' ? 'Page removed since this answer' : 'Page changed since this answer'}</span>`;
}

declare global {
  interface HTMLElementTagNameMap {
    'conversations-page': ConversationsPage;
  }
}
