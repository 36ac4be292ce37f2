import type { TemplateResult } from 'lit';
import { IncrementalMarkdown } from '../../src/markdown/incremental.js';
import { renderView } from '../../src/markdown/render.js';

/**
 * An answer as the widget shows it: the widget's own markdown path (marked's lexer, cut to the
 * Lexer by scripts/marked-lexer-only.mjs, with the widget's bounds), rendered to Lit templates.
 * Agent text reaches the DOM only through text and attribute bindings (no HTML sink), links
 * pass the widget's rules (http, https, mailto, relative; new tab, no referrer), images show
 * their alt text. Loaded with the first conversation opened, so the first load stays small.
 */
export function renderAnswer(text: string): TemplateResult {
  return renderView(new IncrementalMarkdown().finish(text));
}
