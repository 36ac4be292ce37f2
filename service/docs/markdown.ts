import { splitLong } from './sections.js';
import type { ExtractedPage, Section } from './types.js';

/**
 * A Markdown document cut into sections at its ATX (`## …`) and setext headings, outside
 * fenced code. Each section's anchor is the heading's slug as GitHub and most site generators
 * make it (lowercase, punctuation dropped, spaces as hyphens, `-1`, `-2` for repeats). Its title
 * is its `#` heading, else its front matter's `title` (Docusaurus, Mintlify and Starlight pages
 * have no `#` heading), else `fallbackTitle`; the front matter's `description` opens the text.
 * `mdx` reads it as MDX: imports, exports, comments and components' tags go, their text stays.
 */
export function extractMarkdown(
  markdown: string,
  pageUrl: string,
  fallbackTitle: string,
  { mdx = false } = {},
): ExtractedPage {
  const front = frontMatter(markdown);
  const body = mdx ? mdxText(front.body) : front.body;
  const lines = [...(front.description ? [front.description, ''] : []), ...body.split(/\r?\n/)];
  const headings = headingsOf(lines);
  const title = headings.find((h) => h.level === 1)?.text ?? front.title ?? fallbackTitle;
  const slugs = new Map<string, number>();
  const sections: Section[] = [];
  const path: { level: number; text: string }[] = [];
  let titled = false;
  let anchor: string | null = null;
  let from = 0;
  const emit = (to: number) => {
    const text = lines.slice(from, to).join('\n').trim();
    if (!text) return;
    const url = anchor ? `${pageUrl}#${anchor}` : pageUrl;
    sections.push(...splitLong({ url, pageUrl, title, headings: path.map((h) => h.text), text }));
  };
  for (const heading of headings) {
    emit(heading.line);
    from = heading.end;
    while (path.length && path.at(-1)!.level >= heading.level) path.pop();
    const slug = slugOf(heading.text, slugs);
    if (!titled && path.length === 0 && heading.level === 1 && heading.text === title) {
      titled = true;
      anchor = null;
    } else {
      path.push({ level: heading.level, text: heading.text });
      anchor = slug;
    }
  }
  emit(lines.length);
  return { title, sections, links: [], canonical: null, noindex: false, nofollow: false };
}

/** The fence `line` opens (outside code) or closes (inside `fence`), or null when it does neither. */
function fenceLine(line: string, fence: string | null): string | null {
  const marker = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
  if (!marker) return null;
  return fence === null || (marker[0] === fence[0] && marker.length >= fence.length) ? marker : null;
}

/** The ATX and setext headings of `lines`, outside fenced code: where each is and where its text starts. */
function headingsOf(lines: readonly string[]): { line: number; level: number; text: string; end: number }[] {
  const headings: { line: number; level: number; text: string; end: number }[] = [];
  let fence: string | null = null;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const marker = fenceLine(line, fence);
    if (marker) {
      fence = fence === null ? marker : null;
      continue;
    }
    if (fence !== null) continue;
    const atx = /^ {0,3}(#{1,6})\s+(.*?)(?:\s+#+)?\s*$/.exec(line);
    if (atx) headings.push({ line: i, level: atx[1].length, text: inline(atx[2]), end: i + 1 });
    else if (
      i > 0 &&
      /^ {0,3}(=+|-+)\s*$/.test(line) &&
      lines[i - 1].trim() &&
      !/^\s*[-*+>|]/.test(lines[i - 1])
    )
      headings.push({
        line: i - 1,
        level: line.trim()[0] === '=' ? 1 : 2,
        text: inline(lines[i - 1]),
        end: i + 1,
      });
  }
  return headings;
}

/** A heading's text without its inline Markdown: links keep their words, marks go. */
const inline = (text: string) =>
  text
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/`([^`]*)`/g, '$1')
    .replace(/(\*{1,2})(\S.*?)\1/g, '$2')
    .replace(/(^|\s)_{1,2}(\S[^_]*?)_{1,2}(?=\s|$)/g, '$1$2')
    .trim();

function slugOf(text: string, seen: Map<string, number>): string {
  const base = text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .trim()
    .replace(/\s/g, '-');
  const count = seen.get(base) ?? 0;
  seen.set(base, count + 1);
  return encodeURIComponent(count ? `${base}-${count}` : base);
}

/** A leading YAML front matter block: its `title` and `description` (plain or quoted scalars), and the text after it. */
function frontMatter(text: string): { title?: string; description?: string; body: string } {
  const block = /^---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/.exec(text);
  if (!block) return { body: text };
  const field = (name: string) => {
    const value = new RegExp(`^${name}:[ \\t]*(.*?)[ \\t]*$`, 'm').exec(block[1])?.[1];
    const unquoted = value?.replace(/^(["'])(.*)\1$/, '$2').trim();
    return unquoted || undefined;
  };
  return { title: field('title'), description: field('description'), body: text.slice(block[0].length) };
}

/**
 * MDX as the Markdown it shows (outside fenced code): `import`/`export` blocks (which run to a
 * blank line, as MDX parses them) and JSX comments go; a component's tags go and its
 * text stays, a `title` kept as a bold line (`<Accordion title="Can I cancel?">` is the
 * question a FAQ answers).
 */
function mdxText(text: string): string {
  const out: string[] = [];
  let fence: string | null = null;
  let esm = false;
  let prose: string[] = [];
  const flush = () => {
    out.push(
      ...prose
        .join('\n')
        .replace(/\{\/\*[\s\S]*?\*\/\}/g, '')
        .replace(COMPONENT_TAG, (_tag, close: string, attributes: string) => {
          const title = close ? null : /\btitle=(?:"([^"]*)"|'([^']*)')/.exec(attributes);
          return title ? `\n\n**${title[1] ?? title[2]}**\n\n` : '';
        })
        // What went leaves blank lines; outside code, one says all they say.
        .replace(/[ \t]+$/gm, '')
        .replace(/\n{3,}/g, '\n\n')
        .split('\n'),
    );
    prose = [];
  };
  for (const line of text.split(/\r?\n/)) {
    if (fence === null && esm) {
      esm = line.trim() !== '';
      continue;
    }
    if (fence === null && /^(import|export)\s/.test(line)) {
      esm = true;
      continue;
    }
    const marker = fenceLine(line, fence);
    if (marker) {
      if (fence === null) flush();
      fence = fence === null ? marker : null;
      out.push(line);
      continue;
    }
    if (fence !== null) out.push(line);
    else prose.push(line);
  }
  flush();
  return out.join('\n').replace(/^\n+/, '');
}

/** A component's opening, closing or self-closing tag: capitalised, as MDX tells components from HTML. */
const COMPONENT_TAG = /<(\/?)[A-Z][\w.]*((?:\s+(?:[^<>"'{}]|"[^"]*"|'[^']*'|\{[^{}]*\})*)?)\s*\/?>/g;
