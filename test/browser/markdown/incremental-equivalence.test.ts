import { describe, expect, it } from 'vitest';
import { IncrementalMarkdown } from '../../../src/markdown/incremental.js';
import {
  commonMarkExamples,
  cutPoints,
  gfmExtensionExamples,
  renderView,
  type SpecExample,
} from '../../helpers/markdown.js';

/** The rendered DOM, without Lit's comment markers. */
const dom = (container: HTMLElement) => container.innerHTML.replace(/<!--[^>]*-->/g, '');

function whole(markdown: string): string {
  const container = document.createElement('div');
  renderView(new IncrementalMarkdown().finish(markdown), container);
  return dom(container);
}

/** Streams the text through one IncrementalMarkdown, rendering at every cut, then finishes. */
function streamed(markdown: string, cuts: number[]): string {
  const container = document.createElement('div');
  const md = new IncrementalMarkdown();
  for (const cut of cuts) renderView(md.update(markdown.slice(0, cut)), container);
  renderView(md.finish(markdown), container);
  return dom(container);
}

const examples: SpecExample[] = [...commonMarkExamples(), ...gfmExtensionExamples()];

describe('incremental markdown', () => {
  it('ends with the same DOM as a whole render for every spec example, cut at every 7th character and line end', () => {
    const differ = examples.filter(
      (example) => streamed(example.markdown, cutPoints(example.markdown)) !== whole(example.markdown),
    );
    expect(examples.length).toBe(679);
    expect(differ.map((e) => e.number)).toEqual([]);
  });

  it('ends with the same DOM for every spec example streamed one character at a time', () => {
    const everyChar = (text: string) => Array.from({ length: text.length - 1 }, (_, i) => i + 1);
    const differ = examples.filter(
      (example) => streamed(example.markdown, everyChar(example.markdown)) !== whole(example.markdown),
    );
    expect(differ.map((e) => e.number)).toEqual([]);
  });

  it('ends with the same DOM when a reference definition arrives after the links that use it', () => {
    const text = `Read [the guide] and [the API][api].\n\n${'Filler paragraph.\n\n'.repeat(20)}[the guide]: https://x.test/guide\n[api]: https://x.test/api "API"\n`;
    const cuts = cutPoints(text);
    expect(streamed(text, cuts)).toBe(whole(text));
    expect(whole(text)).toContain('href="https://x.test/api"');
  });
});
