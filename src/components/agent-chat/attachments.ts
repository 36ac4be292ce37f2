/**
 * The panel's side of attachments: what the element's attributes allow, files dropped on the
 * panel, and a question's files (thumbnails and downloads with the session's token).
 */
import { nothing, type ReactiveController, type ReactiveControllerHost } from 'lit';
import { ContextProvider } from '@lit/context';
import type { FileInfo, FileKind } from '../../api/types.js';
import { DEFAULT_RULES, type AttachmentRules } from '../../chat/attachments.js';
import type { ChatSession } from '../../chat/chat-session.js';
import { fileAccessContext, type FileAccess } from '../../context/index.js';
import type { Translate } from '../../i18n/index.js';
import { AttachmentKitController } from '../attachments/kit-controller.js';

/** The element's attachment attributes, as its properties hold them. */
export interface AttachmentAttributes {
  attachments: string;
  attachmentTypes: string;
  attachmentMaxSize: number;
  attachmentMaxFiles: number;
}

const KINDS: readonly FileKind[] = ['image', 'text', 'pdf'];

/** What the attributes allow, within the service's bounds (§11); null when attachments are off. */
export function rulesOf(host: AttachmentAttributes): AttachmentRules | null {
  if (host.attachments === 'off') return null;
  const named = host.attachmentTypes
    .split(/[\s,]+/)
    .filter((k): k is FileKind => KINDS.includes(k as FileKind));
  const kinds = host.attachmentTypes.trim() ? named : [...DEFAULT_RULES.kinds];
  const cap = host.attachmentMaxSize > 0 ? host.attachmentMaxSize : Number.POSITIVE_INFINITY;
  const maxFiles = Math.min(Math.max(Math.floor(host.attachmentMaxFiles) || 0, 0), DEFAULT_RULES.maxFiles);
  if (!kinds.length || maxFiles === 0) return null;
  return {
    kinds,
    maxBytes: Object.fromEntries(KINDS.map((k) => [k, Math.min(cap, DEFAULT_RULES.maxBytes[k])])) as Record<
      FileKind,
      number
    >,
    maxFiles,
  };
}

/** The picker's `accept`: the image and PDF types; nothing to narrow when text is taken (text files have no one type). */
export function acceptOf(rules: AttachmentRules): string {
  if (rules.kinds.includes('text')) return '';
  return [
    ...(rules.kinds.includes('image') ? ['image/png', 'image/jpeg', 'image/webp', 'image/gif'] : []),
    ...(rules.kinds.includes('pdf') ? ['application/pdf', '.pdf'] : []),
  ].join(',');
}

/** "images, text files and PDFs" in the visitor's language. */
export function allowedWords(rules: AttachmentRules, t: Translate, locale: string): string {
  const words = { image: t('fileKindImage'), text: t('fileKindText'), pdf: t('fileKindPdf') };
  return new Intl.ListFormat(locale, { type: 'conjunction' }).format(rules.kinds.map((k) => words[k]));
}

export interface AttachmentPanelOptions {
  session: ChatSession;
  /** Files may be dropped now (attachments on, the panel showing). */
  enabled: () => boolean;
  t: () => Translate;
}

/** Saves a sent file for the visitor from its `blob:` URL (a download: never opened in the page). */
function save(url: string, name: string): void {
  Object.assign(document.createElement('a'), { href: url, download: name }).click();
}

/**
 * Files dragged onto the panel: an overlay says where they go while they hover, and a drop adds
 * them to the composer. Only drags that carry files count (dragged text stays the page's).
 * It also provides a question's files to the messages, anew whenever a `blob:` URL arrives.
 */
export class AttachmentPanel implements ReactiveController {
  /** Enter and leave fire for every child crossed: over the panel while this is above 0. */
  #depth = 0;
  readonly kit: AttachmentKitController;
  readonly #access: ContextProvider<typeof fileAccessContext>;
  #urls: ReadonlyMap<string, string> | undefined;

  constructor(
    private readonly host: ReactiveControllerHost & HTMLElement,
    private readonly options: AttachmentPanelOptions,
  ) {
    host.addController(this);
    this.kit = new AttachmentKitController(host);
    this.#access = new ContextProvider(host, {
      context: fileAccessContext,
      initialValue: this.#fileAccess(),
    });
  }

  #fileAccess(): FileAccess {
    const { attachments } = this.options.session.composer;
    return {
      thumbnail: (file: FileInfo) => {
        const url = attachments.urls.get(file.file_id);
        if (!url) void attachments.fileUrl(file.file_id);
        return url;
      },
      download: (file: FileInfo) =>
        void attachments.fileUrl(file.file_id).then((url) => url && save(url, file.name)),
    };
  }

  hostUpdate(): void {
    // A new value when a thumbnail arrived: the messages that show it render again.
    const { urls } = this.options.session.composer.attachments;
    if (urls === this.#urls) return;
    this.#urls = urls;
    this.#access.setValue(this.#fileAccess());
  }

  get over(): boolean {
    return this.#depth > 0;
  }

  hostConnected(): void {
    for (const type of ['dragenter', 'dragover', 'dragleave', 'drop'] as const)
      this.host.addEventListener(type, this.#handle);
  }

  hostDisconnected(): void {
    for (const type of ['dragenter', 'dragover', 'dragleave', 'drop'] as const)
      this.host.removeEventListener(type, this.#handle);
  }

  /** The overlay while files hover over the panel (the kit's; a plain one until it has loaded). */
  render() {
    if (!this.over) return nothing;
    return this.kit.kit?.overlay(this.options.t()('dropFiles')) ?? nothing;
  }

  readonly #handle = (event: DragEvent): void => {
    if (!this.options.enabled() || !event.dataTransfer?.types.includes('Files')) return;
    event.preventDefault();
    const was = this.over;
    if (event.type === 'dragenter') {
      this.#depth++;
      void this.kit.need();
    } else if (event.type === 'dragleave') this.#depth = Math.max(0, this.#depth - 1);
    else if (event.type === 'dragover') event.dataTransfer.dropEffect = 'copy';
    else {
      this.#depth = 0;
      const files = [...event.dataTransfer.files];
      if (files.length) this.options.session.composer.attachments.add(files);
    }
    if (was !== this.over) this.host.requestUpdate();
  };
}
