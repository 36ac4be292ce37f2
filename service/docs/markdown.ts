import { splitLong } from './sections.js';
import type { ExtractedPage, Section } from './types.js';

/**
 * A Markdown document cut into sections at its ATX (`## …`) and setext headings, outside
 * fenced code. Each section's anchor is the heading's slug as GitHub and most site generators
 * make it (lowercase, punctuation dropped, spaces as hyphens, `-1`, `-2` for repeats).
 */
export function extractMarkdown(markdown: string, pageUrl: string, fallbackTitle: string): ExtractedPage {
  const lines = markdown.replace(/^---\n[\s\S]*?\n---\n/, '').split(/\r?\n/);
  const headings: { line: number; level: number; text: string; end: number }[] = [];
  let fence: string | null = null;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const marker = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (marker && (fence === null || (marker[0] === fence[0] && marker.length >= fence.length))) {
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
  const title = headings.find((h) => h.level === 1)?.text ?? fallbackTitle;
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
