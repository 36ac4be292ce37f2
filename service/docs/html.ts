import { parseDocument } from 'htmlparser2';
import { fence, splitLong } from './sections.js';
import type { ExtractedPage, Section } from './types.js';

/**
 * The main content of an HTML page, cut into sections at its headings, with the page's links.
 * htmlparser2 builds the tree (decision 286): it reads whatever a real site serves, unclosed
 * tags and all, 2.5 times as fast as a spec-exact parser on the Python manual.
 */

/** The nodes of htmlparser2's tree that the walk reads (its `domhandler` types, structurally). */
interface Node {
  type: string;
  name?: string;
  attribs?: Record<string, string>;
  children?: Node[];
  data?: string;
  parent?: Node | null;
}

/** Never content, wherever they are. */
const DROP = new Set([
  'script',
  'style',
  'noscript',
  'template',
  'svg',
  'math',
  'iframe',
  'object',
  'embed',
  'canvas',
  'nav',
  'footer',
  'form',
  'button',
  'select',
  'input',
  'textarea',
  'dialog',
  'head',
]);
const DROP_ROLES = new Set([
  'navigation',
  'banner',
  'contentinfo',
  'search',
  'complementary',
  'menu',
  'dialog',
]);
const BLOCK = new Set([
  'p',
  'div',
  'section',
  'article',
  'main',
  'header',
  'ul',
  'ol',
  'dl',
  'dd',
  'dt',
  'blockquote',
  'figure',
  'figcaption',
  'details',
  'summary',
  'table',
  'thead',
  'tbody',
  'tfoot',
  'tr',
  'td',
  'th',
  'caption',
  'hr',
  'address',
  'center',
]);
/** A paragraph or list item whose text is at least this share of link text is navigation. */
const NAVIGATION_LINK_SHARE = 0.9;
/**
 * The characters the link share counts: all but spaces and the separators of a navigation line,
 * so "« previous | up | next »" is not taken for prose.
 */
const letterCount = (text: string) => text.replace(/[\s|«»‹›·•←→↑]/gu, '').length;
/**
 * The words a line of previous/next links says besides its links ("Next: <a>Using it</a>,
 * Previous: <a>Intro</a>, Up: <a>Manual</a> [<a>Index</a>]", as Texinfo writes every page of a
 * GNU manual): a line with links and no other word is navigation, whatever its link share.
 */
const NAVIGATION_WORDS = new Set(['next', 'previous', 'prev', 'up', 'top', 'home', 'index', 'contents']);
const onlyNavigationWords = (text: string) => {
  const words = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  return words.length > 0 && words.every((word) => NAVIGATION_WORDS.has(word));
};
const INLINE_CODE = new Set(['code', 'kbd', 'samp', 'tt', 'var']);
/**
 * A link whose whole text is one of these marks a permalink, not content (VitePress's is a
 * zero-width space).
 */
const PERMALINK = /^[\s¶#§🔗¶\u200b\ufeff]*$/u;

const textOf = (node: Node): string =>
  node.type === 'text' ? (node.data ?? '') : (node.children ?? []).map(textOf).join('');

const clean = (text: string) =>
  text
    .replace(/[¶§\u200b\ufeff]/g, '')
    .replace(/\s+/g, ' ')
    .trim();

function find(node: Node, test: (node: Node) => boolean): Node | undefined {
  if (test(node)) return node;
  for (const child of node.children ?? []) {
    const found = find(child, test);
    if (found) return found;
  }
  return undefined;
}

function findAll(node: Node, test: (node: Node) => boolean, out: Node[] = []): Node[] {
  if (test(node)) out.push(node);
  for (const child of node.children ?? []) findAll(child, test, out);
  return out;
}

function depthIn(node: Node, name: string): number {
  let depth = 0;
  for (let at = node.parent; at; at = at.parent) if (at.name === name) depth++;
  return depth;
}

/** Letters of `node`'s text inside links. */
const linkLetters = (node: Node): number =>
  node.type === 'tag' && node.name === 'a' && node.attribs?.href
    ? letterCount(textOf(node))
    : (node.children ?? []).reduce((sum, child) => sum + linkLetters(child), 0);

const isTag = (node: Node, ...names: string[]) => node.type === 'tag' && names.includes(node.name ?? '');

/** Absolute `href` against `base`, without its fragment; null for anything not http(s). */
export function resolveUrl(href: string, base: string): string | null {
  try {
    const url = new URL(href.trim(), base);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
    url.hash = '';
    return url.href;
  } catch {
    return null;
  }
}

/**
 * A top heading that is wholly a link to another page names the site (a theme's banner:
 * `<h1><a href="../index.html">Acme 3.2 documentation</a></h1>`), not this page: neither its
 * title nor a heading of its content.
 */
function isBanner(node: Node, pageUrl: string, base: string): boolean {
  if (!isTag(node, 'h1')) return false;
  const letters = letterCount(textOf(node));
  const links = findAll(node, (n) => isTag(n, 'a') && !!n.attribs?.href);
  return (
    letters > 0 &&
    linkLetters(node) === letters &&
    links.every((a) => {
      const target = resolveUrl(a.attribs!.href, base);
      return target !== null && target !== pageUrl;
    })
  );
}

/**
 * Classes and ids that documentation generators give their navigation, dropped as `<nav>` is: a
 * theme's sidebar, DocBook XSL's previous/up/next tables above and below every page
 * (PostgreSQL's manual: they named the chapter and the next page in each page's opening),
 * breadcrumbs, a page's table of contents (Doxygen's opened a "Table of Contents" section that
 * took the page's text), footers ("Generated by Doxygen" on every page), Doxygen's title bar
 * and path bar, and DocBook's back-of-book index, whose every entry ("max_connections
 * configuration parameter, Connection Settings") was a section of its own, quoted as the answer
 * in place of the section it points at.
 */
const NAVIGATION_NAMES = new Set([
  'sidebar',
  // TypeDoc's column of settings, "On This Page" and the site's menu.
  'col-sidebar',
  'navheader',
  'navfooter',
  'breadcrumb',
  'breadcrumbs',
  'toc',
  'footer',
  'titlearea',
  'navpath',
  'indexdiv',
]);
const isNavigation = (attribs: Record<string, string>) =>
  NAVIGATION_NAMES.has(attribs.id ?? '') ||
  (attribs.class ?? '').split(/\s+/).some((c) => NAVIGATION_NAMES.has(c));

/**
 * Classes of a note, tip or warning set in the text. DocBook XSL titles one with a heading
 * (`<div class="note"><h3 class="title">Note</h3>`): it is not a section, and the text after the
 * note belongs to the section around it.
 */
const ADMONITION_CLASSES = new Set(['note', 'tip', 'warning', 'caution', 'important', 'admonition']);
function inAdmonition(node: Node): boolean {
  for (let at = node.parent; at; at = at.parent)
    if ((at.attribs?.class ?? '').split(/\s+/).some((c) => ADMONITION_CLASSES.has(c))) return true;
  return false;
}

/**
 * A page without an `<h1>` is titled by its `<title>`; but when that is its first heading and the
 * site's name ("Control Flow - The Rust Programming Language": mdBook titles a book's subchapters
 * with `<h2>`), the heading is the page's title, as an `<h1>` would be.
 */
function headingTitle(tag: string, root: Node, banner: (node: Node) => boolean): string {
  const first = find(root, (n) => isTag(n, 'h2', 'h3', 'h4', 'h5', 'h6') && !banner(n));
  const heading = first ? clean(textOf(first)) : '';
  const rest = heading && tag.startsWith(heading) ? tag.slice(heading.length) : '';
  return /^\s*[-–—|·:]\s*\S/u.test(rest) ? heading : tag;
}

/** Where the main content is: `<main>`, `role="main"`, a lone `<article>`, else the body. */
function mainOf(document: Node): { root: Node; landmark: boolean } {
  const main =
    find(document, (n) => isTag(n, 'main')) ??
    find(document, (n) => n.type === 'tag' && n.attribs?.role === 'main');
  if (main) return { root: main, landmark: true };
  const articles = findAll(document, (n) => isTag(n, 'article'));
  if (articles.length === 1) return { root: articles[0], landmark: true };
  return { root: find(document, (n) => isTag(n, 'body')) ?? document, landmark: false };
}

/** A list item's marker: "- ", or "3. " in an ordered list. */
const LIST_MARKER = /^(?:-|\d+\.) /;
const BARE_MARKER = /^(?:-|\d+\.)$/;

/** The marker of list item `node`: numbered in an `<ol>` (from its `start`), else a dash. */
function markerOf(node: Node): string {
  const list = node.parent;
  if (!list || !isTag(list, 'ol')) return '- ';
  const items = (list.children ?? []).filter((c) => isTag(c, 'li'));
  return `${(Number.parseInt(list.attribs?.start ?? '', 10) || 1) + items.indexOf(node)}. `;
}

interface Open {
  level: number;
  heading: string;
  /** Its own anchor, or the nearest enclosing heading's. */
  anchor: string | null;
}

/** Builds sections while the walk emits blocks and headings. */
class SectionWriter {
  readonly sections: Section[] = [];
  private path: Open[] = [];
  private titled = false;
  private anchor: string | null = null;
  private blocks: string[] = [];
  private line = '';
  /** Characters of `line` that are link text. */
  private linked = 0;
  /** The text of `line` outside links. */
  private unlinked = '';

  constructor(
    private readonly pageUrl: string,
    private readonly title: string,
  ) {}

  text(text: string, link = false) {
    this.line += text;
    if (link) this.linked += letterCount(text);
    else this.unlinked += text;
  }

  /**
   * Ends the current paragraph, if any. One that is nearly all link text (a table of contents,
   * an index, a list of related pages), or links with only navigation words beside them, is
   * navigation, not content, and is dropped.
   */
  flush() {
    const line = this.line.replace(/[ \t\r\n\f]+/g, ' ').trim();
    const letters = letterCount(line.replace(LIST_MARKER, ''));
    const navigation =
      letters > 0 &&
      (this.linked >= NAVIGATION_LINK_SHARE * letters ||
        (this.linked > 0 && onlyNavigationWords(this.unlinked)));
    // A list item's bare marker (the item holds only a code block or a list) says nothing.
    if (line && !BARE_MARKER.test(line) && !navigation) this.blocks.push(line);
    this.line = '';
    this.linked = 0;
    this.unlinked = '';
  }

  /**
   * Starts a paragraph or another block: ends the one before it, except a list item's bare marker,
   * which the block's first line continues (`<li><p>…</p></li>` is "- …", not "-" and a paragraph).
   */
  open() {
    if (!BARE_MARKER.test(this.line.trim())) this.flush();
  }

  block(text: string) {
    this.flush();
    if (text.trim()) this.blocks.push(text);
  }

  heading(level: number, heading: string, anchor: string | null) {
    // The page's own title heading opens the part under the title, not a section of its own; what
    // came above it (Javadoc's "Module java.base", a breadcrumb's words) is of that part too.
    if (!this.titled && heading === this.title && this.path.every((open) => open.level >= level)) {
      if (this.path.length) this.end();
      else this.flush();
      this.path = [];
      this.anchor = null;
      this.titled = true;
      return;
    }
    this.end();
    while (this.path.length && this.path.at(-1)!.level >= level) this.path.pop();
    this.path.push({ level, heading, anchor: anchor ?? this.path.at(-1)?.anchor ?? null });
    this.anchor = this.path.at(-1)?.anchor ?? null;
  }

  end(): Section[] {
    this.flush();
    const text = this.blocks.join('\n\n').trim();
    this.blocks = [];
    if (text) {
      const url = this.anchor ? `${this.pageUrl}#${encodeURIComponent(this.anchor)}` : this.pageUrl;
      const headings = this.path.map((open) => open.heading);
      this.sections.push(...splitLong({ url, pageUrl: this.pageUrl, title: this.title, headings, text }));
    }
    return this.sections;
  }
}

/** The id a heading is reached by: its own, a permalink's inside it, or the element it opens. */
function anchorOf(heading: Node, pending: string | null): string | null {
  if (heading.attribs?.id) return heading.attribs.id;
  const inner = find(
    heading,
    (n) => n !== heading && n.type === 'tag' && !!(n.attribs?.id || n.attribs?.name || n.attribs?.href),
  );
  const own = inner?.attribs?.id || inner?.attribs?.name;
  if (own) return own;
  const href = inner?.attribs?.href;
  if (href?.startsWith('#') && href.length > 1) {
    try {
      return decodeURIComponent(href.slice(1));
    } catch {
      return href.slice(1);
    }
  }
  return pending;
}

/**
 * Reads one HTML page: title, main content as sections (headings kept; navigation, footers,
 * scripts and styles dropped), links, canonical address and robots directives. `url` is the
 * address the page was fetched from.
 */
export function extractHtml(html: string, url: string): ExtractedPage {
  // The HTML standard's input stream: CR LF and CR are LF (AsciiDoc writes CR LF, and a code block keeps it).
  const document = parseDocument(html.replace(/\r\n?/g, '\n')) as unknown as Node;
  const base = resolveUrl(find(document, (n) => isTag(n, 'base'))?.attribs?.href ?? '', url) ?? url;
  const pageUrl = resolveUrl(url, url) ?? url;
  const robots = findAll(
    document,
    (n) => isTag(n, 'meta') && /^(robots|agent-chat)$/i.test(n.attribs?.name ?? ''),
  )
    .map((n) => n.attribs?.content?.toLowerCase() ?? '')
    .join(',');
  const canonicalHref = find(
    document,
    (n) => isTag(n, 'link') && (n.attribs?.rel ?? '').toLowerCase().split(/\s+/).includes('canonical'),
  )?.attribs?.href;
  const refresh = find(
    document,
    (n) => isTag(n, 'meta') && (n.attribs?.['http-equiv'] ?? '').toLowerCase() === 'refresh',
  )?.attribs?.content;
  const links = new Set<string>();
  // A page's links, and what it shows inside it: a PDF manual in a viewer (`<iframe>`, `<embed>`,
  // `<object>`) is as much the site's as one linked.
  for (const node of findAll(document, (n) => isTag(n, 'a', 'area', 'iframe', 'embed', 'object'))) {
    const target = node.attribs?.href ?? node.attribs?.src ?? node.attribs?.data;
    const link = target ? resolveUrl(target, base) : null;
    if (link) links.add(link);
  }

  const { root, landmark } = mainOf(document);
  const banner = (node: Node) => isBanner(node, pageUrl, base);
  const h1 = find(root, (n) => isTag(n, 'h1') && !banner(n));
  const titleTag = find(document, (n) => isTag(n, 'title'));
  const title =
    clean(h1 ? textOf(h1) : '') ||
    headingTitle(clean(titleTag ? textOf(titleTag) : ''), root, banner) ||
    new URL(pageUrl).pathname;
  const walker = new ContentWalker(new SectionWriter(pageUrl, title), landmark, banner);
  walker.walk(root);
  return {
    title,
    sections: walker.writer.end(),
    links: [...links],
    canonical: canonicalHref ? resolveUrl(canonicalHref, base) : null,
    noindex: /\b(noindex|none)\b/.test(robots),
    nofollow: /\b(nofollow|none)\b/.test(robots),
    refresh: refresh ? refreshTarget(refresh, base) : null,
    // domhandler types a script element 'script', not 'tag'.
    scripted: !!find(document, (n) => n.name === 'script' && !/json|importmap/i.test(n.attribs?.type ?? '')),
  };
}

/**
 * Where `<meta http-equiv="refresh" content="0; url=…">` sends the reader (the HTML standard's
 * syntax: a delay, then `url=` with or without quotes); null for a refresh without an address,
 * which reloads the page itself.
 */
function refreshTarget(content: string, base: string): string | null {
  const target = /^\s*[\d.]*\s*[;,]\s*(?:url\s*=\s*)?(?:(["'])(.*?)\1|(.+))$/i.exec(content);
  const href = (target?.[2] ?? target?.[3] ?? '').trim();
  return href ? resolveUrl(href, base) : null;
}

/**
 * The language of code block `pre`, as highlighters mark it on the block, its `<code>` or the box
 * around it (`language-sh`, Sphinx's `highlight-python3`, Expressive Code's `data-language`);
 * empty when none names one.
 */
function languageOf(pre: Node): string {
  const code = (pre.children ?? []).find((c) => isTag(c, 'code'));
  for (const node of [pre, code, pre.parent]) {
    const language = node?.attribs?.['data-language'] || LANGUAGE.exec(node?.attribs?.class ?? '')?.[1];
    if (language && !/^(default|none|text|plain|plaintext)$/i.test(language)) return language;
  }
  return '';
}
const LANGUAGE = /(?:^|\s)(?:language|lang|highlight)-([\w+#.-]+)/;

/**
 * The text of code block `pre` as it shows: a highlighter that puts each line in a box of its own
 * (Expressive Code, in Starlight: `<div class="ec-line">`, no newline between) has a line per box.
 */
function codeText(pre: Node): string {
  let text = '';
  const visit = (node: Node) => {
    if (node.type === 'text') text += node.data ?? '';
    else if (isTag(node, 'br')) text += '\n';
    else if (node.type === 'tag') {
      const box = isTag(node, 'div', 'p', 'li', 'tr');
      if (box && text && !text.endsWith('\n')) text += '\n';
      for (const child of node.children ?? []) visit(child);
    }
  };
  visit(pre);
  return text;
}
/** Whether `node` is the box of one code block and its controls (a highlighter's wrapper). */
const codeBlock = (node: Node | null | undefined) =>
  !!node && LANGUAGE.test(node.attribs?.class ?? '') && !!find(node, (n) => isTag(n, 'pre'));

/**
 * A table's rows as cells of plain text, written as one Markdown table (its first row the header):
 * rows of its own, not of a table inside a cell, and not those nearly all links (navigation).
 */
function tableRows(table: Node): string[][] {
  const rows: string[][] = [];
  const visit = (node: Node) => {
    for (const child of node.children ?? []) {
      if (isTag(child, 'table')) continue;
      if (!isTag(child, 'tr')) {
        visit(child);
        continue;
      }
      const cells = (child.children ?? [])
        .filter((c) => isTag(c, 'td', 'th'))
        .map((c) => clean(textOf(c)).replaceAll('|', '\\|'));
      const letters = letterCount(cells.join(''));
      if (letters && linkLetters(child) < NAVIGATION_LINK_SHARE * letters) rows.push(cells);
    }
  };
  visit(table);
  return rows;
}

/**
 * A table drawn with a CSS grid of boxes, as Javadoc (9 and later) draws its summaries:
 * `<div class="summary-table three-column-summary">` holding header and row cells in order.
 */
const GRID = /(?:^|\s)(two|three|four)-column-summary(?:\s|$)/;
const GRID_COLUMNS: Record<string, number> = { two: 2, three: 3, four: 4 };
function gridRows(grid: Node, columns: number): string[][] {
  const cells = (grid.children ?? [])
    .filter((c) => c.type === 'tag')
    .map((c) => clean(textOf(c)).replaceAll('|', '\\|'));
  const rows: string[][] = [];
  for (let at = 0; at < cells.length; at += columns) rows.push(cells.slice(at, at + columns));
  return rows;
}

/**
 * Whether `<aside>` `node` is a callout in the text (Starlight's "Caution: …") rather than a
 * sidebar: it has no heading and no navigation. Only one inside the main content is read.
 */
const isCallout = (node: Node) => !find(node, (n) => isTag(n, 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'nav'));

/**
 * Text for screen readers only ("Terminal window" over Starlight's shell blocks): a label of the
 * page's controls, not what a reader of the page reads.
 */
const SCREEN_READER_ONLY = new Set(['sr-only', 'visually-hidden', 'screen-reader-text']);

/** Walks the main content, telling the writer its text, blocks and headings. */
class ContentWalker {
  /** The id of the last element seen: the anchor of a heading that follows it at once. */
  private pending: string | null = null;
  private inLink = 0;

  constructor(
    readonly writer: SectionWriter,
    private readonly landmark: boolean,
    private readonly banner: (node: Node) => boolean,
  ) {}

  walk(node: Node): void {
    if (node.type === 'text') {
      const text = node.data ?? '';
      if (text.trim()) this.pending = null;
      this.writer.text(text.replace(/\s+/g, ' '), this.inLink > 0);
      return;
    }
    if (node.type !== 'tag' && node.type !== 'root') return;
    const name = node.name ?? '';
    const attribs = node.attribs ?? {};
    if (DROP.has(name) || DROP_ROLES.has(attribs.role ?? '') || isNavigation(attribs)) return;
    if (name === 'aside') {
      if (!this.landmark || !isCallout(node)) return;
      // Its kind ("Caution") is often only its label, the visible title hidden from readers.
      if (attribs['aria-label']) this.writer.block(attribs['aria-label']);
    }
    if ((attribs.class ?? '').split(/\s+/).some((c) => SCREEN_READER_ONLY.has(c))) return;
    // A tab that is not shown yet is content all the same (Docusaurus's "Yarn" beside "npm").
    if (attribs['aria-hidden'] === 'true' || ('hidden' in attribs && attribs.role !== 'tabpanel')) return;
    if (!this.landmark && name === 'header') return;
    if (this.banner(node)) return;
    if (name === 'a' && PERMALINK.test(textOf(node))) {
      if (!textOf(node).trim() && (attribs.id || attribs.name)) this.pending = attribs.id || attribs.name;
      return;
    }
    if (this.heading(node, name, attribs)) return;
    if (attribs.id) this.pending = attribs.id;
    if (this.leaf(node, name)) return;
    const block = BLOCK.has(name) || name === 'li';
    if (name === 'li') {
      this.writer.flush();
      this.writer.text(markerOf(node));
    } else if (block) this.writer.open();
    const link = name === 'a' && !!attribs.href;
    if (link) this.inLink++;
    for (const child of node.children ?? []) this.walk(child);
    if (link) this.inLink--;
    if (block) this.writer.flush();
  }

  /**
   * A heading opens a section, but for a note's title, which is a line of its text. An anchored
   * term of a definition list is an entry of an API reference (`os.path.join`): a section below
   * the headings, one level deeper per enclosing list (methods in classes). True when `node` was
   * one.
   */
  private heading(node: Node, name: string, attribs: Record<string, string>): boolean {
    const level = /^h[1-6]$/.test(name)
      ? Number(name[1])
      : name === 'dt' && attribs.id
        ? 6 + depthIn(node, 'dl')
        : 0;
    if (!level) return false;
    const heading = clean(textOf(node));
    if (!heading) return false;
    if (level <= 6 && inAdmonition(node)) {
      this.writer.block(heading);
      return true;
    }
    this.writer.heading(level, heading, anchorOf(node, this.pending));
    this.pending = null;
    if (level > 6) this.writer.block(heading);
    return true;
  }

  /** Code, line breaks and tables, written whole; true when `node` was one. */
  private leaf(node: Node, name: string): boolean {
    if (name === 'pre') {
      const code = codeText(node).replace(/^\n+|\s+$/g, '');
      if (code) this.writer.block(fence(code, languageOf(node)));
      return true;
    }
    // The language a code block's corner shows (VitePress): the fence says it.
    if ((node.attribs?.class ?? '').split(/\s+/).includes('lang') && codeBlock(node.parent)) return true;
    if (name === 'br') {
      this.writer.text('\n');
      return true;
    }
    if (INLINE_CODE.has(name)) {
      const code = textOf(node).replace(/\s+/g, ' ').trim();
      // Links inside the code count as links around it do (Javadoc's inherited members: `<code><a>clone</a>, <a>equals</a>…</code>`).
      // Letters and digits only: the commas between the links are not prose.
      const linked =
        this.inLink > 0 ||
        linkLetters(node) >= NAVIGATION_LINK_SHARE * (code.match(/[\p{L}\p{N}]/gu) ?? []).length;
      if (code) this.writer.text(code.includes('`') ? code : `\`${code}\``, linked);
      return true;
    }
    const columns = GRID_COLUMNS[GRID.exec(node.attribs?.class ?? '')?.[1] ?? ''];
    if (name !== 'table' && !columns) return false;
    const rows = columns ? gridRows(node, columns) : tableRows(node);
    // One row is layout, not data (AsciiDoc sets a note's "Important" beside its text so): its
    // cells are read as the paragraphs they hold.
    if (rows.length === 1) return false;
    if (rows.length) {
      const rule = `|${' --- |'.repeat(Math.max(...rows.map((r) => r.length)))}`;
      const lines = rows.map((cells) => `| ${cells.join(' | ')} |`);
      this.writer.block([lines[0], ...(lines.length > 1 ? [rule] : []), ...lines.slice(1)].join('\n'));
    }
    return true;
  }
}
