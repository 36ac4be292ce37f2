import { describe, expect, it } from 'vitest';
import { IncrementalMarkdown } from '../../../src/markdown/incremental.js';
import { LLM_ANSWERS } from '../../fixtures/llm-answers.js';
import { cutPoints, renderView } from '../../helpers/markdown.js';

/** Characters and pairs that are markdown syntax when a reader sees them outside code. */
const MARKERS = ['*', '_', '~', '`', '[', '](', '|', '#'];

/** How often each marker shows as text, leaving out code (where it is content, not syntax). */
function visibleMarkers(container: HTMLElement): Map<string, number> {
  const copy = container.cloneNode(true) as HTMLElement;
  copy.querySelectorAll('code, pre, .code-bar').forEach((el) => el.remove());
  const text = copy.textContent ?? '';
  return new Map(MARKERS.map((marker) => [marker, text.split(marker).length - 1]));
}

/**
 * The share of mid-stream renderings (cut at every 7th character and every line end) that show
 * a markdown marker more often than the finished answer does: syntax the reader sees now and
 * that later disappears into formatting.
 */
function rawSyntaxShare(answers: readonly string[]) {
  let renderings = 0;
  let raw = 0;
  const examples: string[] = [];
  for (const answer of answers) {
    const final = document.createElement('div');
    renderView(new IncrementalMarkdown().finish(answer), final);
    const finalMarkers = visibleMarkers(final);
    const md = new IncrementalMarkdown();
    const live = document.createElement('div');
    for (const cut of cutPoints(answer)) {
      renderView(md.update(answer.slice(0, cut)), live);
      renderings += 1;
      const shown = visibleMarkers(live);
      if (MARKERS.some((marker) => shown.get(marker)! > finalMarkers.get(marker)!)) {
        raw += 1;
        if (examples.length < 8) examples.push(JSON.stringify(answer.slice(Math.max(0, cut - 30), cut)));
      }
    }
  }
  return { renderings, raw, share: raw / renderings, examples };
}

describe('streaming markdown', () => {
  it('shows markdown syntax the final answer does not in at most 5 % of mid-stream renderings', () => {
    expect(LLM_ANSWERS.length).toBeGreaterThanOrEqual(20);
    const result = rawSyntaxShare(LLM_ANSWERS);
    console.info(
      `raw syntax mid-stream: ${result.raw}/${result.renderings} renderings (${(result.share * 100).toFixed(1)} %); e.g. ${result.examples.join(' ')}`,
    );
    expect(result.renderings).toBeGreaterThan(900);
    expect(result.share).toBeLessThanOrEqual(0.05);
  });

  it('renders unfinished forms as their finished forms', () => {
    const live = document.createElement('div');
    const show = (text: string) => {
      renderView(new IncrementalMarkdown().update(text), live);
      return live;
    };
    expect(show('Some **bold text').querySelector('strong')?.textContent).toBe('bold text');
    expect(show('Some *emphasis').querySelector('em')?.textContent).toBe('emphasis');
    expect(show('Some ~~struck').querySelector('del')?.textContent).toBe('struck');
    expect(show('Run `npm ci').querySelector('code')?.textContent).toBe('npm ci');
    expect(show('Read [the guide](https://docs.exa').textContent!.trim()).toBe('Read the guide');
    const fenced = show('Example:\n```js\nconst a = 1;\nconst b');
    expect(fenced.querySelector('pre code')?.textContent).toBe('const a = 1;\nconst b');
    expect(fenced.querySelector('.code-lang')?.textContent).toBe('js');
    expect(show('| Plan | Price |\n|--').querySelectorAll('th')).toHaveLength(2);
  });
});
