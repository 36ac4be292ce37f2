/**
 * robots.txt as RFC 9309 reads it: the group for our product token (`agent-chat`) or else `*`,
 * the longest matching rule wins, `allow` on a tie; `*` and `$` in paths.
 */
import { matchesParts } from './path-pattern.js';

export const PRODUCT_TOKEN = 'agent-chat';

interface Rule {
  allow: boolean;
  /** The rule's path, percent-encoded as a URL's is, split at its stars. */
  parts: string[];
  /** It ended in `$`: the path ends where the rule does. */
  anchored: boolean;
  length: number;
}

export interface Robots {
  allowed(url: string): boolean;
  /** `Sitemap:` lines, absolute. */
  sitemaps: string[];
  /**
   * Our group's `Crawl-delay`, in milliseconds (0 without one): not in RFC 9309, but what a site
   * that writes it asks of every crawler that reads it (Bing's, Yandex's).
   */
  crawlDelayMs: number;
}

export const ALLOW_ALL: Robots = { allowed: () => true, sitemaps: [], crawlDelayMs: 0 };
export const DISALLOW_ALL: Robots = { allowed: () => false, sitemaps: [], crawlDelayMs: 0 };

export function parseRobots(text: string, robotsUrl: string): Robots {
  type Group = { agents: string[]; rules: Rule[]; delayMs?: number };
  const groups: Group[] = [];
  const sitemaps: string[] = [];
  let group: Group | null = null;
  let agentsOpen = false;
  for (const raw of text.split(/\r?\n|\r/)) {
    const line = raw.replace(/#.*/, '').trim();
    const match = /^([A-Za-z-]+)\s*:\s*(.*)$/.exec(line);
    if (!match) continue;
    const key = match[1].toLowerCase();
    const value = match[2].trim();
    if (key === 'sitemap') {
      try {
        sitemaps.push(new URL(value, robotsUrl).href);
      } catch {
        // An address that does not parse names no sitemap.
      }
    } else if (key === 'user-agent') {
      if (!group || !agentsOpen) groups.push((group = { agents: [], rules: [] }));
      group.agents.push(value.toLowerCase());
      agentsOpen = true;
    } else if (key === 'crawl-delay' && group) {
      agentsOpen = false;
      if (/^\d+(\.\d+)?$/.test(value)) group.delayMs = Number(value) * 1000;
    } else if ((key === 'allow' || key === 'disallow') && group) {
      agentsOpen = false;
      // An empty disallow allows everything: it adds no rule.
      if (value) group.rules.push({ allow: key === 'allow', ...compile(value), length: value.length });
    }
  }
  const ours = groups.filter((g) => g.agents.includes(PRODUCT_TOKEN));
  const chosen = ours.length ? ours : groups.filter((g) => g.agents.includes('*'));
  const rules = chosen.flatMap((g) => g.rules);
  return {
    sitemaps,
    crawlDelayMs: Math.max(0, ...chosen.map((g) => g.delayMs ?? 0)),
    allowed(url) {
      const { pathname, search } = new URL(url);
      const path = pathname + search;
      let best: Rule | null = null;
      for (const rule of rules)
        if (
          matchesParts(path, rule.parts, rule.anchored) &&
          (!best || rule.length > best.length || (rule.length === best.length && rule.allow))
        )
          best = rule;
      return best?.allow ?? true;
    },
  };
}

/** A robots path pattern: a prefix, with `*` for any run and `$` for the end. */
function compile(pattern: string): { parts: string[]; anchored: boolean } {
  const anchored = pattern.endsWith('$');
  const parts = (anchored ? pattern.slice(0, -1) : pattern).split('*').map(encodePath);
  return { parts, anchored };
}

/** Percent-encodes what a URL's path would, so a rule written with raw characters matches. */
function encodePath(part: string): string {
  try {
    return encodeURI(decodeURI(part));
  } catch {
    return part;
  }
}

/** `X-Robots-Tag` directives that take a value after a colon, so are no crawler's name. */
const VALUED_DIRECTIVES = new Set([
  'max-snippet',
  'max-image-preview',
  'max-video-preview',
  'unavailable_after',
]);

/**
 * The `X-Robots-Tag` header's word for this crawler: the directives given for every crawler or
 * for `agent-chat` (`noindex`, `googlebot: nofollow`, `agent-chat: none`). It is how a site
 * marks what has no `<meta>` to mark it: a PDF, a text file.
 */
export function robotsHeader(value: string | null): { noindex: boolean; nofollow: boolean } {
  let agent: string | null = null;
  const directives: string[] = [];
  for (const part of (value ?? '').toLowerCase().split(',')) {
    let directive = part.trim();
    const named = /^([\w.-]+)\s*:\s*(.*)$/.exec(directive);
    if (named && !VALUED_DIRECTIVES.has(named[1])) [agent, directive] = [named[1], named[2].trim()];
    if (agent === null || agent === PRODUCT_TOKEN) directives.push(directive);
  }
  const none = directives.includes('none');
  return {
    noindex: none || directives.includes('noindex'),
    nofollow: none || directives.includes('nofollow'),
  };
}
