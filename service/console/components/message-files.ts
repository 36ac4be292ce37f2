import { LitElement, css, html, nothing } from 'lit';
import { property, state } from 'lit/decorators.js';
import type { ConsoleApi } from '../api.js';
import type { FileInfo } from '../../../contract/types.js';
import { savedFileName } from '../../../contract/saved-name.js';
import { base, tokens } from '../styles.js';

const size = (bytes: number) =>
  bytes < 1000
    ? `${bytes} B`
    : bytes < 1_000_000
      ? `${(bytes / 1000).toFixed(1)} kB`
      : `${(bytes / 1_000_000).toFixed(1)} MB`;

/**
 * A question's files in the conversation review: images as thumbnails, every file a button that
 * downloads it. Bytes come with the admin's session and show from `blob:` URLs (revoked when the
 * element goes); a file never becomes a page, and its name is text.
 */
export class MessageFiles extends LitElement {
  static styles = [
    tokens,
    base,
    css`
      :host { display: block; }
      ul { list-style: none; margin: 0; padding: 0; display: flex; flex-wrap: wrap; gap: 8px; }
      button { min-height: 40px; height: auto; display: inline-flex; align-items: center; gap: 8px; padding: 6px 10px; max-width: 100%; text-align: start; }
      img { width: 64px; height: 64px; object-fit: cover; border-radius: 6px; background: var(--c-raised); }
      .name { overflow-wrap: anywhere; }
    `,
  ];

  @property({ attribute: false }) api!: ConsoleApi;
  @property() project = '';
  @property({ attribute: false }) files: FileInfo[] = [];
  @state() private thumbnails = new Map<string, string>();
  private readonly urls = new Set<string>();

  updated(changed: Map<string, unknown>) {
    if (changed.has('files'))
      for (const file of this.files)
        if (file.kind === 'image' && !this.thumbnails.has(file.file_id)) void this.thumbnail(file);
  }

  disconnectedCallback() {
    super.disconnectedCallback();
    for (const url of this.urls) URL.revokeObjectURL(url);
    this.urls.clear();
    this.thumbnails = new Map();
  }

  private async blobUrl(file: FileInfo, download = false): Promise<string | null> {
    const blob = await this.api.file(this.project, file.file_id, download).catch(() => null);
    if (!blob || !this.isConnected) return null;
    const url = URL.createObjectURL(blob);
    this.urls.add(url);
    return url;
  }

  private async thumbnail(file: FileInfo) {
    const url = await this.blobUrl(file);
    if (url) this.thumbnails = new Map(this.thumbnails).set(file.file_id, url);
  }

  private async download(file: FileInfo) {
    // Fetched again even when its thumbnail holds the bytes: the download is what the audit log records.
    const url = await this.blobUrl(file, true);
    if (!url) return;
    const link = document.createElement('a');
    link.href = url;
    // The name the service would give it, ending as its type does: `invoice.html` holding text is
    // saved as `invoice.html.txt`, never a page that runs from disk (decision 819).
    link.download = savedFileName(file.name, file.content_type);
    link.click();
  }

  render() {
    return html`<ul aria-label="Attached files">${this.files.map((f) => {
      const thumbnail = this.thumbnails.get(f.file_id);
      // Named by its text ("Download" is for screen readers only), so the visible name is in it.
      return html`<li><button type="button" @click=${() => this.download(f)}>
        ${thumbnail ? html`<img src=${thumbnail} alt="">` : nothing}
        <span><span class="visually-hidden">Download</span> <span class="name">${f.name}</span><br><span class="muted">${f.kind} · ${size(f.size)}</span></span></button></li>`;
    })}</ul>`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'message-files': MessageFiles;
  }
}
