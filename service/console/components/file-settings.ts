import { LitElement, css, html, nothing } from 'lit';
import { property, state } from 'lit/decorators.js';
import { type ConsoleApi, ConsoleApiError } from '../api.js';
import type { ConsoleFileSettingsView } from '../../../contract/console.js';
import type { FileKind } from '../../../contract/types.js';
import { base, tokens } from '../styles.js';

const KINDS: { kind: FileKind; label: string; noun: string; hint: string }[] = [
  { kind: 'image', label: 'Images', noun: 'image', hint: 'PNG, JPEG, WebP, GIF' },
  { kind: 'text', label: 'Text', noun: 'text', hint: 'plain text, Markdown, CSV, JSON, logs, code' },
  { kind: 'pdf', label: 'PDF', noun: 'PDF', hint: 'read as the text of its first pages' },
];
const MB = 1_000_000;

/** What one integration's visitors may attach: kinds, the largest file of each, files per question. */
export class FileSettingsForm extends LitElement {
  static styles = [
    tokens,
    base,
    css`
      :host { display: block; }
      table { width: auto; }
      td input[type='number'] { width: 7em; }
      .kind { display: flex; gap: 8px; align-items: center; font-weight: 550; }
    `,
  ];

  @property({ attribute: false }) api!: ConsoleApi;
  @property() project = '';
  @property() integration = '';
  @state() private settings: ConsoleFileSettingsView | null = null;
  @state() private message: { tone: 'ok' | 'error'; text: string } | null = null;

  updated(changed: Map<string, unknown>) {
    if (changed.has('integration') || changed.has('project')) void this.load();
  }

  private async load() {
    this.settings = null;
    this.message = null;
    try {
      this.settings = await this.api.fileSettings(this.project, this.integration);
    } catch (error) {
      this.message = {
        tone: 'error',
        text: error instanceof ConsoleApiError ? error.message : 'The file settings could not be loaded.',
      };
    }
  }

  private async save(event: SubmitEvent) {
    event.preventDefault();
    const data = new FormData(event.target as HTMLFormElement);
    const sizes = Object.fromEntries(
      KINDS.map(({ kind }) => [kind, Math.round(Number(data.get(`max-${kind}`)) * MB)]),
    ) as Record<FileKind, number>;
    try {
      this.settings = await this.api.saveFileSettings(this.project, this.integration, {
        kinds: KINDS.map((k) => k.kind).filter((kind) => data.get(`kind-${kind}`) === 'on'),
        max_bytes: sizes,
        per_question: Number(data.get('per-question')),
      });
      this.message = { tone: 'ok', text: 'Saved the file settings.' };
    } catch (error) {
      this.message = {
        tone: 'error',
        text: error instanceof ConsoleApiError ? error.message : 'That did not work.',
      };
    }
  }

  render() {
    const s = this.settings;
    return html`<section class="card stack" aria-labelledby="files-title">
      <h2 id="files-title">Files</h2>
      <p class="muted">What visitors may attach to a question. The service decides a file's kind from its bytes; SVG, HTML and executables are never taken. Unsent files are deleted after 24 hours; sent ones with their conversation.</p>
      ${this.message ? html`<p class="notice ${this.message.tone}" role=${this.message.tone === 'error' ? 'alert' : 'status'}>${this.message.text}</p>` : nothing}
      ${
        s
          ? html`<form class="stack" @submit=${this.save}>
        <fieldset class="plain" ?disabled=${this.api.role === 'viewer'}>
        <div class="table-wrap"><table><thead><tr><th scope="col">Kind</th><th scope="col">Largest file (MB)</th></tr></thead><tbody>
          ${KINDS.map(
            ({ kind, label, noun, hint }) => html`<tr>
            <td><label class="kind"><input type="checkbox" name="kind-${kind}" .checked=${s.kinds.includes(kind)}>${label} <span class="hint">${hint}</span></label></td>
            <td><input type="number" name="max-${kind}" aria-label="Largest ${noun} file in MB" min="0.001" step="0.001" max=${s.limits.max_bytes[kind] / MB} .value=${String(s.max_bytes[kind] / MB)} required></td>
          </tr>`,
          )}
        </tbody></table></div>
        <label>Files per question
          <select name="per-question">${Array.from({ length: s.limits.per_question + 1 }, (_, n) => html`<option value=${n} ?selected=${n === s.per_question}>${n === 0 ? 'None (attachments off)' : n}</option>`)}</select></label>
        </fieldset>
        ${this.api.role === 'viewer' ? nothing : html`<div class="row"><span class="spacer"></span><button class="primary" type="submit">Save file settings</button></div>`}
      </form>`
          : this.message
            ? nothing
            : html`<p class="muted" role="status">Loading…</p>`
      }
    </section>`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'file-settings': FileSettingsForm;
  }
}
