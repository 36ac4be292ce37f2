import { MAX_SOURCES } from '../../contract/limits.js';
import type { Source } from '../../contract/types.js';
import { estimateTokens, jsonBytes } from './history-budget.js';
import { placeOf, sectionName } from '../docs/sections.js';
import type { Hit } from '../docs/types.js';
import type { MessageRecord } from '../storage/types.js';
import type { Phrases } from './phrases.js';

/** The visitor's question before this one in the thread, if any: what a follow-up's "it" is about. */
export function earlierQuestion(history: readonly MessageRecord[]): string | undefined {
  return [...history].reverse().find((message) => message.role === 'user')?.content;
}

/** Between two sections' blocks, in the prompt's documents and in a search's output. */
export const SEPARATOR = '\n\n---\n\n';

/** How one section reads in a prompt: where it is, then its text. */
export function sectionBlock({ section }: Hit): string {
  const where = [section.title, ...section.headings].join(' › ');
  return `## ${where}\nURL: ${section.url}\n\n${section.text}`;
}

/**
 * The best sections whose blocks fit in `tokens` (estimated as the history is), in rank order:
 * a section that does not fit is passed over for a smaller one after it, never cut.
 */
export function fitSections(hits: readonly Hit[], tokens: number): Hit[] {
  const chosen: Hit[] = [];
  let left = tokens;
  for (const hit of hits) {
    const cost = estimateTokens(sectionBlock(hit));
    if (cost > left) continue;
    chosen.push(hit);
    left -= cost;
  }
  return chosen;
}

/**
 * The sections that fit `tokens` and, as JSON, `bytes`, as one text of blocks (a search's
 * output), with their estimated tokens. A section that does not fit is passed over, never cut.
 */
export function blocksOf(
  hits: readonly Hit[],
  tokens: number,
  bytes: number,
): { text: string; found: Hit[]; tokens: number } {
  const found: Hit[] = [];
  let text = '';
  let cost = 0;
  for (const hit of fitSections(hits, tokens)) {
    const block = sectionBlock(hit);
    const next = text ? text + SEPARATOR + block : block;
    if (jsonBytes(next) > bytes) continue;
    found.push(hit);
    text = next;
    cost += estimateTokens(block);
  }
  return { text, found, tokens: cost };
}

/**
 * The sources of an answer: each page once (a PDF's pages each), at its best section (title,
 * the section's heading and its anchor URL, the score), best first, at most five.
 */
export function sourcesOf(hits: readonly Hit[], max = MAX_SOURCES): Source[] {
  const pages = new Set<string>();
  const sources: Source[] = [];
  for (const { section, score } of hits) {
    if (pages.has(placeOf(section))) continue;
    pages.add(placeOf(section));
    sources.push({
      title: section.title,
      subtitle: null,
      source_url: section.url,
      source_type: 'documentation',
      section: sectionName(section),
      score: Math.round(score * 1000) / 1000,
    });
    if (sources.length === max) break;
  }
  return sources;
}

/** The step of the search with the visitor's words, as both agents show it. */
export const firstSearch = (phrases: Phrases, question: string) => ({
  id: 'search-1',
  name: 'search_knowledge_base',
  summary: phrases.searching(question),
  num_results: null as number | null,
});
