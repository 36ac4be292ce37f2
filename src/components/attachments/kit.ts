/**
 * The heavier half of attachments, loaded the first time a visitor attaches a file or a thread
 * with files is shown (a part of its own, decision 331): the chips with thumbnails and upload
 * progress, a question's files, the drop overlay, their styles, and the upload transport that
 * reports progress.
 *
 * It imports nothing at run time: the widget hands it Lit's `html` and `nothing`, so it renders
 * with the widget's one Lit and stays a small, self-contained part.
 */
import type { html as litHtml, nothing as litNothing, TemplateResult } from 'lit';
import type { FileInfo, Transport } from '../../api/types.js';
import type { Notice, PendingFile } from '../../chat/attachments.js';
import type { Translate } from '../../i18n/index.js';

export interface Lit {
  html: typeof litHtml;
  nothing: typeof litNothing;
}

/** What the tray needs from the composer. */
export interface TrayView {
  files: readonly PendingFile[];
  notice: Notice | null;
  t: Translate;
  /** The kinds the page takes, in words ("images, text files and PDFs"). */
  allowed: string;
  formatBytes(bytes: number): string;
  remove(id: string): void;
}

/** What a question's files need: their thumbnails and downloads (with the session's token). */
export interface FilesView {
  files: readonly FileInfo[];
  t: Translate;
  formatBytes(bytes: number): string;
  thumbnail(file: FileInfo): string | undefined;
  download(file: FileInfo): void;
}

const STYLES = `
.tray { display: flex; flex-wrap: wrap; gap: 8px; list-style: none; margin: 0; padding: 0 0 4px; }
.files { display: flex; flex-wrap: wrap; gap: 6px; list-style: none; margin: 0 0 6px; padding: 0; justify-content: flex-end;
  max-width: var(--agent-chat-message-max-width, 85%); }
.chip { position: relative; display: flex; align-items: center; gap: 8px; max-width: 100%; min-width: 0; min-height: 44px;
  box-sizing: border-box; padding: 4px 6px 4px 4px; border: 1px solid var(--agent-chat-color-border); border-radius: 12px;
  background: var(--agent-chat-color-surface-raised); color: var(--agent-chat-color-text); font: 13px/1.3 var(--agent-chat-font-family); }
.chip.failed { border-color: var(--agent-chat-color-danger, #b42318); }
.tray .chip { flex: 1 1 160px; max-width: 240px; }
.thumb { flex: none; width: 36px; height: 36px; border-radius: 8px; object-fit: cover; background: var(--agent-chat-color-border); }
.kind { flex: none; display: grid; place-items: center; width: 36px; height: 36px; border-radius: 8px; font-size: 10px; font-weight: 700;
  letter-spacing: 0.02em; text-transform: uppercase; background: var(--agent-chat-color-accent); color: var(--agent-chat-color-on-accent); }
.label { display: grid; min-width: 0; flex: 1; text-align: start; }
.name { overflow: hidden; text-overflow: ellipsis; white-space: nowrap; font-weight: 600; }
.size { color: var(--agent-chat-color-text-muted); font-size: 12px; }
progress { position: absolute; inset: auto 8px 3px 48px; width: auto; height: 3px; appearance: none; border: 0; border-radius: 2px;
  background: var(--agent-chat-color-border); color: var(--agent-chat-color-accent); }
progress::-webkit-progress-bar { background: var(--agent-chat-color-border); border-radius: 2px; }
progress::-webkit-progress-value { background: var(--agent-chat-color-accent); border-radius: 2px; }
progress::-moz-progress-bar { background: var(--agent-chat-color-accent); }
.remove { flex: none; display: grid; place-items: center; width: 32px; height: 32px; margin: 0; padding: 0; border: 0; border-radius: 50%;
  background: transparent; color: var(--agent-chat-color-text-muted); cursor: pointer; }
.remove:hover { background: var(--agent-chat-color-border); color: var(--agent-chat-color-text); }
button.chip { cursor: pointer; text-align: start; }
button.chip:hover { border-color: var(--agent-chat-color-accent); }
.files .image { padding: 0; border: 0; background: none; min-height: 0; }
.files .image .name { display: none; }
.files .image.broken { padding: 8px 12px; border: 1px solid var(--agent-chat-color-border); background: var(--agent-chat-color-surface-raised); }
.files .image.broken .name { display: block; }
.files .image img { display: block; width: 160px; max-width: 100%; height: 120px; object-fit: cover; border-radius: 12px;
  border: 1px solid var(--agent-chat-color-border); background: var(--agent-chat-color-surface-raised); }
.notice { margin: 4px 8px; font: 13px/1.4 var(--agent-chat-font-family); color: var(--agent-chat-color-danger, #b42318); }
.notice:empty { margin: 0; }
.overlay { position: absolute; inset: 0; z-index: 5; display: grid; place-items: center; pointer-events: none;
  background: color-mix(in srgb, var(--agent-chat-color-surface) 88%, transparent);
  border: 2px dashed var(--agent-chat-color-accent); border-radius: inherit; color: var(--agent-chat-color-text);
  font: 600 16px/1.4 var(--agent-chat-font-family); }
@media (prefers-reduced-motion: no-preference) { .overlay { animation: agent-chat-fade 120ms ease-out; } }
@keyframes agent-chat-fade { from { opacity: 0; } }
`;

const X = 'M6.4 5 5 6.4 10.6 12 5 17.6 6.4 19l5.6-5.6 5.6 5.6 1.4-1.4-5.6-5.6L19 6.4 17.6 5 12 10.6z';

/** An upload over XMLHttpRequest, whose `upload.onprogress` reports the bytes sent (fetch cannot, in every browser). */
function progressTransport(onProgress: (fraction: number) => void): Transport {
  return (url, init) =>
    new Promise((resolve, reject) => {
      const xhr = new XMLHttpRequest();
      xhr.open(init.method ?? 'GET', url);
      xhr.responseType = 'blob';
      new Headers(init.headers).forEach((value, name) => xhr.setRequestHeader(name, value));
      xhr.upload.onprogress = (event) => {
        if (event.lengthComputable && event.total > 0) onProgress(event.loaded / event.total);
      };
      const aborted = () => reject(new DOMException('The upload was stopped.', 'AbortError'));
      xhr.onload = () => {
        const headers = new Headers();
        for (const line of xhr
          .getAllResponseHeaders()
          .trim()
          .split(/[\r\n]+/)) {
          const at = line.indexOf(':');
          if (at > 0) headers.append(line.slice(0, at).trim(), line.slice(at + 1).trim());
        }
        resolve(
          new Response(xhr.status === 204 ? null : (xhr.response as Blob), { status: xhr.status, headers }),
        );
      };
      xhr.onerror = () => reject(new TypeError('Failed to fetch'));
      xhr.onabort = aborted;
      if (init.signal?.aborted) return aborted();
      init.signal?.addEventListener('abort', () => xhr.abort(), { once: true });
      xhr.send(init.body as XMLHttpRequestBodyInit);
    });
}

export function createKit({ html, nothing }: Lit) {
  const styles = new CSSStyleSheet();
  styles.replaceSync(STYLES);
  const cross = html`<svg viewBox="0 0 24 24" width="16" height="16" aria-hidden="true" focusable="false" fill="currentColor"><path d=${X}></path></svg>`;
  const badge = (kind: string, name: string) =>
    html`<span class="kind" aria-hidden="true">${kind === 'pdf' ? 'PDF' : (/\.(\w{1,4})$/.exec(name)?.[1] ?? 'TXT')}</span>`;
  /** A broken thumbnail (a page whose CSP refuses `blob:` images) gives way to the file's badge. */
  const hideBroken = (event: Event) => {
    const img = event.target as HTMLElement;
    img.hidden = true;
    // A question's image then shows its name instead (its button would be empty).
    img.parentElement?.classList.add('broken');
  };

  const chip = (file: PendingFile, view: TrayView): TemplateResult => {
    const { t } = view;
    const percent = Math.round(file.progress * 100);
    return html`<li class="chip ${file.status}">
      ${file.preview ? html`<img class="thumb" src=${file.preview} alt="" @error=${hideBroken} />` : badge(file.kind, file.name)}
      <span class="label"><span class="name" dir="auto" title=${file.name}>${file.name}</span>
        <span class="size">${file.status === 'failed' && file.error ? t(file.error.key, { ...file.error.values, allowed: view.allowed }) : view.formatBytes(file.size)}</span></span>
      ${file.status === 'uploading' ? html`<progress max="100" .value=${percent} aria-label=${t('uploadingFile', { name: file.name, percent })}></progress>` : nothing}
      <button class="remove" type="button" aria-label=${t('removeFile', { name: file.name })} title=${t('removeFile', { name: file.name })} @click=${() => view.remove(file.id)}>${cross}</button>
    </li>`;
  };

  return {
    styles,
    transport: progressTransport,
    tray: (view: TrayView) =>
      html`${view.files.length ? html`<ul class="tray" aria-label=${view.t('attachedFiles')}>${view.files.map((f) => chip(f, view))}</ul>` : nothing}
      <p class="notice" role="alert">${view.notice ? view.t(view.notice.key, { ...view.notice.values, allowed: view.allowed }) : ''}</p>`,
    files: (view: FilesView) =>
      html`<ul class="files" part="files" aria-label=${view.t('attachedFiles')}>${view.files.map((f) => {
        const url = f.kind === 'image' ? view.thumbnail(f) : undefined;
        const name = view.t('downloadFile', { name: f.name });
        return html`<li>${
          url
            ? html`<button type="button" class="chip image" aria-label=${name} title=${f.name} @click=${() => view.download(f)}><img src=${url} alt="" @error=${hideBroken} /><span class="name" dir="auto">${f.name}</span></button>`
            : html`<button type="button" class="chip" title=${f.name} @click=${() => view.download(f)}><span class="visually-hidden">${name}, ${view.formatBytes(f.size)}</span>
                ${badge(f.kind, f.name)}<span class="label" aria-hidden="true"><span class="name" dir="auto">${f.name}</span><span class="size">${view.formatBytes(f.size)}</span></span></button>`
        }</li>`;
      })}</ul>`,
    overlay: (label: string) => html`<div class="overlay" aria-hidden="true">${label}</div>`,
  };
}

export type AttachmentKit = ReturnType<typeof createKit>;
