import { html, nothing, type TemplateResult } from 'lit';
import type { Token, Tokens } from 'marked';
import { safeHref } from './safe-url.js';

type Out = TemplateResult | string | typeof nothing;

/**
 * Markdown tokens to Lit templates. Agent text only ever reaches the DOM through text and
 * attribute bindings, so it cannot become markup: raw HTML renders as visible text, links go
 * through safeHref, and images render as their alt text. There is no innerHTML anywhere.
 *
 * Templates are cached per token object: frozen blocks of a streaming answer (see
 * IncrementalMarkdown) keep their token objects, so Lit sees identical values and skips them.
 */
const cache = new WeakMap<Token, Out>();

export function renderBlocks(tokens: readonly Token[]): Out[] {
  return tokens.map(renderBlockCached);
}

function renderBlockCached(token: Token): Out {
  let out = cache.get(token);
  if (out === undefined) {
    out = renderBlock(token);
    cache.set(token, out);
  }
  return out;
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };

/** Markdown allows HTML entities in text; decoded to characters, never parsed as HTML. */
function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (match, entity: string) => {
    if (entity[0] !== '#') return ENTITIES[entity.toLowerCase()] ?? match;
    const code = entity[1].toLowerCase() === 'x' ? parseInt(entity.slice(2), 16) : parseInt(entity.slice(1), 10);
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : match;
  });
}

function inline(tokens: readonly Token[] | undefined, fallback = ''): Out[] | string {
  return tokens ? tokens.map(renderInline) : decodeEntities(fallback);
}

function renderInline(token: Token): Out {
  switch (token.type) {
    case 'text':
      return 'tokens' in token && token.tokens ? html`${inline(token.tokens)}` : decodeEntities(token.text);
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
    case 'link': {
      // CommonMark decodes entities in destinations: judge the URL the author meant.
      const href = safeHref(decodeEntities(token.href));
      const label = inline(token.tokens, token.text);
      return href
        ? html`<a href=${href} target="_blank" rel="noopener noreferrer nofollow" title=${token.title || nothing}>${label}</a>`
        : html`${label}`;
    }
    case 'image':
      // No images by default: a remote image is a tracking pixel the visitor never agreed to.
      return token.text ? `[${token.text}]` : nothing;
    default:
      // html, and anything a later marked adds: shown as the text it is.
      return 'raw' in token ? token.raw : nothing;
  }
}

function renderListItem(item: Tokens.ListItem): TemplateResult {
  const checkbox = item.task ? html`<input type="checkbox" disabled .checked=${!!item.checked} aria-label=${item.checked ? 'done' : 'not done'} /> ` : nothing;
  return html`<li>${checkbox}${item.tokens.map((t) => (t.type === 'text' ? renderInline(t) : renderBlockCached(t)))}</li>`;
}

function renderBlock(token: Token): Out {
  switch (token.type) {
    case 'space':
    case 'def':
      return nothing;
    case 'heading':
      // Every answer heading is an h3 under the panel's h2: agents skip levels freely, and a
      // skipped level breaks heading navigation. The markdown depth survives as a class.
      return html`<h3 class="h${token.depth}">${inline(token.tokens, token.text)}</h3>`;
    case 'paragraph':
      return html`<p>${inline(token.tokens, token.text)}</p>`;
    case 'text':
      return html`<p>${inline(token.tokens, token.text)}</p>`;
    case 'blockquote':
      return html`<blockquote>${renderBlocks(token.tokens ?? [])}</blockquote>`;
    case 'code':
      return html`<pre><code class=${token.lang ? `language-${token.lang.replace(/[^\w-]/g, '')}` : nothing}>${token.text}</code></pre>`;
    case 'hr':
      return html`<hr />`;
    case 'list': {
      const items = (token.items as Tokens.ListItem[]).map(renderListItem);
      return token.ordered
        ? html`<ol start=${token.start === '' || token.start === 1 ? nothing : token.start}>${items}</ol>`
        : html`<ul>${items}</ul>`;
    }
    case 'table': {
      const table = token as Tokens.Table;
      const align = (i: number) => (table.align[i] ? `align-${table.align[i]}` : nothing);
      return html`<div class="table-wrap" tabindex="0" role="region" aria-label="Table">
        <table>
          <thead><tr>${table.header.map((cell, i) => html`<th class=${align(i)}>${inline(cell.tokens, cell.text)}</th>`)}</tr></thead>
          <tbody>${table.rows.map((row) => html`<tr>${row.map((cell, i) => html`<td class=${align(i)}>${inline(cell.tokens, cell.text)}</td>`)}</tr>`)}</tbody>
        </table>
      </div>`;
    }
    default:
      // Block HTML and unknown blocks: visible as text.
      return 'raw' in token ? html`<p>${token.raw}</p>` : nothing;
  }
}
