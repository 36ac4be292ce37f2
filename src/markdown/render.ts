import { html, nothing, type TemplateResult } from 'lit';
import { guard } from 'lit/directives/guard.js';
import type { Token, Tokens } from 'marked';
import { renderCode } from './code-block.js';
import { en, translator, type Translate } from '../i18n/index.js';
import { decodeEntities } from './entities.js';
import type { MarkdownView } from './incremental.js';
import { safeHref } from './safe-url.js';

type Out = TemplateResult | string | typeof nothing | Out[];

/**
 * Markdown tokens to Lit templates. Agent text only ever reaches the DOM through text and
 * attribute bindings, so it cannot become markup: raw HTML renders as the text it is, links go
 * through safeHref, and images render as their alt text (never loaded). There is no innerHTML
 * anywhere.
 *
 * Each block finds its own direction (`dir="auto"`): an English answer in an Arabic panel reads
 * left to right, its full stop at the end, while the panel stays right to left. Code is always
 * left to right (code-block.ts, and the styles for inline code).
 *
 * Templates are cached per token object: settled blocks of a streaming answer (see
 * IncrementalMarkdown) keep their token objects, so Lit sees identical values and skips them.
 */
const caches = new WeakMap<Translate, WeakMap<Token, Out>>();
const english = translator(en);
/** The words of the render under way (rendering is synchronous); a new language is a new cache. */
let t: Translate = english;
let cache = new WeakMap<Token, Out>();

/**
 * A whole answer: settled groups (skipped by Lit while unchanged), the growing tail, and what
 * lies past the markdown limit as plain text under a short notice.
 */
export function renderView(view: MarkdownView, words: Translate = english): TemplateResult {
  t = words;
  cache = caches.get(words) ?? new WeakMap();
  caches.set(words, cache);
  return html`${view.groups.map((group) => guard([group, words], () => html`<div class="group">${safely(group)}</div>`))}${safely(view.tail)}${
    view.overflow.length
      ? html`<p class="overflow-notice">${t('answerTruncated')}</p>
          ${view.overflow.map((piece) => html`<div class="plain" dir="auto">${piece}</div>`)}`
      : nothing
  }`;
}

/** Blocks rendered; if that fails (no input may break the page), the text they hold as it is. */
function safely(tokens: readonly Token[]): Out {
  try {
    return renderNodes(tokens);
  } catch {
    return html`<div class="plain" dir="auto">${tokens.map((token) => token.raw).join('')}</div>`;
  }
}

export function renderNodes(tokens: readonly Token[]): Out[] {
  return tokens.map(renderCached);
}

function renderCached(token: Token): Out {
  let out = cache.get(token);
  if (out === undefined) {
    out = renderBlock(token, true);
    cache.set(token, out);
  }
  return out;
}

function inline(tokens: readonly Token[] | undefined, fallback = ''): Out {
  return tokens ? merge(tokens.map(renderInline)) : decodeEntities(fallback);
}

/**
 * Joins neighbouring strings: Lit gives every array item its own part and marker comments, so
 * 30,000 escaped characters as 30,000 items cost a long task where one string costs nothing.
 */
function merge(parts: Out[]): Out {
  const out: Out[] = [];
  for (const part of parts) {
    if (part === nothing) continue;
    const last = out.length - 1;
    if (typeof part === 'string' && typeof out[last] === 'string') out[last] += part;
    else out.push(part);
  }
  return out.length === 1 ? out[0] : out;
}

/** Percent-encodes what a URL may not hold literally (as CommonMark does), keeping existing escapes. */
function encodeHref(href: string): string | undefined {
  try {
    return encodeURI(href).replace(/%25([0-9a-fA-F]{2})/g, '%$1');
  } catch {
    return undefined; // a lone surrogate: not a usable URL
  }
}

function renderLink(token: Tokens.Link): Out {
  const encoded = encodeHref(decodeEntities(token.href));
  const href = encoded === undefined ? undefined : safeHref(encoded);
  const label = inline(token.tokens, token.text);
  return href
    ? html`<a href=${href} target="_blank" rel="noopener noreferrer nofollow" title=${token.title ? decodeEntities(token.title) : nothing}>${label}</a>`
    : label;
}

function renderInline(token: Token): Out {
  switch (token.type) {
    case 'text':
      return 'tokens' in token && token.tokens
        ? inline(token.tokens)
        : token.escaped
          ? token.text
          : decodeEntities(token.text);
    case 'escape':
      return token.text;
    case 'strong':
      return html`<strong>${inline(token.tokens, token.text)}</strong>`;
    case 'em':
      return html`<em>${inline(token.tokens, token.text)}</em>`;
    case 'del':
      return html`<del>${inline(token.tokens, token.text)}</del>`;
    case 'codespan':
      return html`<code>${token.text}</code>`;
    case 'br':
      return html`<br />`;
    case 'link':
      return renderLink(token as Tokens.Link);
    case 'image':
      // Never loaded: a remote image is a tracking pixel the visitor never agreed to.
      return decodeEntities(token.text);
    case 'checkbox':
      return html`<input type="checkbox" disabled ?checked=${token.checked} aria-label=${token.checked ? 'Done' : 'Not done'} /> `;
    default:
      // Raw HTML, and anything a later marked adds: shown as the text it is.
      return 'raw' in token ? String(token.raw) : nothing;
  }
}

function renderTable(table: Tokens.Table): TemplateResult {
  const align = (i: number) => table.align[i] ?? nothing;
  return html`<div class="table-wrap" tabindex="0" role="region" aria-label="Table" dir=${directionOf(table)}>
    <table>
      <thead><tr>${table.header.map((cell, i) => html`<th align=${align(i)}>${inline(cell.tokens, cell.text)}</th>`)}</tr></thead>
      ${
        table.rows.length
          ? html`<tbody>${table.rows.map((row) => html`<tr>${row.map((cell, i) => html`<td align=${align(i)}>${inline(cell.tokens, cell.text)}</td>`)}</tr>`)}</tbody>`
          : nothing
      }
    </table>
  </div>`;
}

/** A top-level list finds its direction (bullets on its side); nested ones follow it. */
function renderList(list: Tokens.List, top: boolean): TemplateResult {
  const items = list.items.map(
    (item) => html`<li>${merge(item.tokens.map((token) => renderBlock(token, false)))}</li>`,
  );
  const start = list.start === '' || list.start === 1 ? nothing : list.start;
  const dir = top ? 'auto' : nothing;
  return list.ordered
    ? html`<ol start=${start} dir=${dir}>${items}</ol>`
    : html`<ul dir=${dir}>${items}</ul>`;
}

/** Inline elements, or characters, past which a paragraph's direction is decided here rather than by `dir="auto"`. */
const AUTO_DIRECTION_CHILDREN = 64;
const AUTO_DIRECTION_LENGTH = 2000;
const STRONG = /[\p{L}]/u;
const RIGHT_TO_LEFT = /[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefc]/;

/**
 * `auto` for a paragraph of prose (or a table). A paragraph of thousands of inline elements (`*a*a…`,
 * `` `a`a… ``), or a long one with no letter at all, made Chromium resolve `dir="auto"` again
 * for every child put in (90-150 ms): there, the direction of its first letter is set outright,
 * as `auto` would find it (left to right without one).
 */
function directionOf(token: Token): 'auto' | 'ltr' | 'rtl' {
  const children =
    token.type === 'table'
      ? (token as Tokens.Table).rows.length
      : 'tokens' in token && token.tokens
        ? token.tokens.length
        : 0;
  if (children <= AUTO_DIRECTION_CHILDREN && token.raw.length <= AUTO_DIRECTION_LENGTH) return 'auto';
  const letter = STRONG.exec(token.raw)?.[0];
  return letter !== undefined && RIGHT_TO_LEFT.test(letter) ? 'rtl' : 'ltr';
}

function renderBlock(token: Token, top: boolean): Out {
  switch (token.type) {
    case 'space':
    case 'def':
      return nothing;
    case 'heading':
      // Every answer heading is an h3 under the panel's h2: agents skip levels freely, and a
      // skipped level breaks heading navigation. The markdown depth survives as a class.
      return html`<h3 class="h${token.depth}" dir="auto">${inline(token.tokens, token.text)}</h3>`;
    case 'paragraph':
      return html`<p dir=${directionOf(token)}>${inline(token.tokens, token.text)}</p>`;
    case 'text':
      // Block text is a tight list item's content; only at the top does it need a paragraph.
      return top
        ? html`<p dir=${directionOf(token)}>${inline(token.tokens, token.text)}</p>`
        : inline(token.tokens, token.text);
    case 'blockquote':
      // No dir of its own: its paragraphs have one, and 200 nested quotes would each resolve it.
      return html`<blockquote>${(token.tokens ?? []).map((child) => renderBlock(child, true))}</blockquote>`;
    case 'code':
      return renderCode(token as Tokens.Code, t);
    case 'hr':
      return html`<hr />`;
    case 'checkbox':
      return renderInline(token);
    case 'list':
      return renderList(token as Tokens.List, top);
    case 'table':
      return renderTable(token as Tokens.Table);
    case 'html':
      // Block HTML is the agent's text, not markup: shown as written.
      return html`<p class="raw" dir="auto">${String(token.raw).replace(/\n+$/, '')}</p>`;
    default:
      return 'raw' in token ? html`<p dir="auto">${String(token.raw)}</p>` : nothing;
  }
}
