import { html, nothing, type TemplateResult } from 'lit';
import type { MarkdownNode } from './parse.js';
import { safeHref } from './safe-url.js';

type Out = TemplateResult | string | typeof nothing | Out[];

/**
 * Markdown AST to Lit templates. Agent text only ever reaches the DOM through text and
 * attribute bindings, so it cannot become markup: raw HTML is plain text (the parser has no
 * HTML rule), links go through safeHref, and images render as their alt text. There is no
 * innerHTML anywhere.
 *
 * Templates are cached per node object: settled nodes of a streaming answer (see
 * IncrementalMarkdown) keep their identity, so Lit sees identical values and skips them.
 */
const cache = new WeakMap<MarkdownNode, Out>();

export function renderNodes(nodes: readonly MarkdownNode[]): Out[] {
  return nodes.map(renderCached);
}

function renderCached(node: MarkdownNode): Out {
  let out = cache.get(node);
  if (out === undefined) {
    out = renderNode(node);
    cache.set(node, out);
  }
  return out;
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/** Link destinations may hide a scheme in entities (`&#106;avascript:`): judge what they mean. */
function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (match, entity: string) => {
    if (entity[0] !== '#') return ENTITIES[entity.toLowerCase()] ?? match;
    const code = entity[1].toLowerCase() === 'x' ? parseInt(entity.slice(2), 16) : parseInt(entity.slice(1), 10);
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : match;
  });
}

const children = (node: MarkdownNode): Out => (Array.isArray(node.content) ? renderNodes(node.content) : typeof node.content === 'string' ? node.content : nothing);

function renderLink(node: MarkdownNode): Out {
  const href = typeof node.target === 'string' ? safeHref(decodeEntities(node.target)) : undefined;
  const label = children(node);
  return href ? html`<a href=${href} target="_blank" rel="noopener noreferrer nofollow" title=${node.title || nothing}>${label}</a>` : html`${label}`;
}

function renderTable(node: MarkdownNode): TemplateResult {
  const align = (i: number) => (node.align?.[i] ? `align-${node.align[i]}` : nothing);
  const header = node.header as MarkdownNode[][];
  const rows = node.cells as MarkdownNode[][][];
  return html`<div class="table-wrap" tabindex="0" role="region" aria-label="Table">
    <table>
      <thead><tr>${header.map((cell, i) => html`<th class=${align(i)}>${renderNodes(cell)}</th>`)}</tr></thead>
      <tbody>${rows.map((row) => html`<tr>${row.map((cell, i) => html`<td class=${align(i)}>${renderNodes(cell)}</td>`)}</tr>`)}</tbody>
    </table>
  </div>`;
}

function renderNode(node: MarkdownNode): Out {
  switch (node.type) {
    case 'text':
      return String(node.content);
    case 'paragraph':
      return html`<p>${children(node)}</p>`;
    case 'heading':
      // Every answer heading is an h3 under the panel's h2: agents skip levels freely, and a
      // skipped level breaks heading navigation. The markdown depth survives as a class.
      return html`<h3 class="h${node.level}">${children(node)}</h3>`;
    case 'strong':
    case 'u': // simple-markdown reads __x__ as underline; CommonMark (and agents) mean strong
      return html`<strong>${children(node)}</strong>`;
    case 'em':
      return html`<em>${children(node)}</em>`;
    case 'del':
      return html`<del>${children(node)}</del>`;
    case 'inlineCode':
      return html`<code>${node.content}</code>`;
    case 'codeBlock':
      return html`<pre><code class=${node.lang ? `language-${String(node.lang).replace(/[^\w-]/g, '')}` : nothing}>${node.content}</code></pre>`;
    case 'blockQuote':
      return html`<blockquote>${children(node)}</blockquote>`;
    case 'list': {
      const items = (node.items as MarkdownNode[][]).map((item) => html`<li>${renderNodes(item)}</li>`);
      return node.ordered ? html`<ol start=${node.start && node.start !== 1 ? node.start : nothing}>${items}</ol>` : html`<ul>${items}</ul>`;
    }
    case 'table':
      return renderTable(node);
    case 'hr':
      return html`<hr />`;
    case 'br':
      return html`<br />`;
    case 'link':
    case 'reflink':
      return renderLink(node);
    case 'image':
    case 'refimage':
      // No images: a remote image is a tracking pixel the visitor never agreed to.
      return node.alt ? `[${node.alt}]` : nothing;
    case 'newline':
    case 'def':
      return nothing;
    default:
      return children(node);
  }
}
