/**
 * The parts of a site its owner keeps out of the index (decision 416): URL path patterns, each a
 * path prefix (`/blog/`) or with `*` for any run of characters, slashes included
 * (`/*\/_modules/`, `*\/whatsnew/`). A pattern matches a path that starts with it, as a
 * robots.txt rule does; only the path counts, never the query, so `?page=2` of an excluded page
 * is excluded too. A folder source matches its files' paths under the folder, with a leading `/`.
 */

import { matchesParts } from './path-pattern.js';

const MAX_EXCLUSIONS = 50;
const MAX_EXCLUSION_LENGTH = 200;

/** What is wrong with a list of patterns, naming the first bad one; null when it is fine. */
export function exclusionProblem(patterns: readonly unknown[]): string | null {
  if (patterns.length > MAX_EXCLUSIONS)
    return `At most ${MAX_EXCLUSIONS} exclude patterns (${patterns.length} given).`;
  for (const pattern of patterns) {
    if (typeof pattern !== 'string') return 'Each exclude pattern is a string.';
    if (pattern.length > MAX_EXCLUSION_LENGTH)
      return `The exclude pattern ${pattern.slice(0, 40)}… is over ${MAX_EXCLUSION_LENGTH} characters.`;
    if (!/^[/*]/.test(pattern))
      return `The exclude pattern "${pattern}" must start with / or * (a path on the site, like /blog/).`;
    if (/\s/.test(pattern)) return `The exclude pattern "${pattern}" has a space in it.`;
  }
  return null;
}

/** Patterns as an owner typed them (a textarea, a comma-separated flag): trimmed, blank ones and repeats dropped. */
export function splitExclusions(text: string | readonly string[]): string[] {
  const parts = typeof text === 'string' ? text.split(/[\n,]/) : text.flatMap((t) => t.split(/[\n,]/));
  return [...new Set(parts.map((p) => p.trim()).filter(Boolean))];
}

/** A path the patterns exclude: the pattern that excludes it, else null. */
export type ExclusionMatcher = (path: string) => string | null;

export function exclusionMatcher(patterns: readonly string[]): ExclusionMatcher {
  const compiled = patterns.map((pattern) => [pattern, pattern.split('*')] as const);
  return (path) => {
    if (!compiled.length) return null;
    let decoded = path;
    try {
      decoded = decodeURIComponent(path);
    } catch {
      // A path with a stray % is matched as it was written.
    }
    for (const [pattern, parts] of compiled)
      if (matchesParts(path, parts) || matchesParts(decoded, parts)) return pattern;
    return null;
  };
}

/** The pattern excluding a URL's path (its query and fragment do not count), else null. */
export function excludedUrl(matcher: ExclusionMatcher, url: string): string | null {
  return matcher(new URL(url).pathname);
}

/**
 * Pages that repeat the words of the page that answers and take its place (decision 416): found
 * by a folder's name anywhere in the path, or by a file's name (PostgreSQL's `release-15-2.html`).
 */
const CROWDING: readonly { kind: CrowdingKind; folder?: RegExp; file?: RegExp }[] = [
  {
    kind: 'release notes',
    folder: /^(releases?|release-notes|changelogs?|whatsnew|whats-new|announce|announcements|news)$/i,
    file: /^(release)-\d/i,
  },
  { kind: 'source listings', folder: /^(_modules|_sources)$/i },
  { kind: 'blog posts', folder: /^blog$/i },
  // A folder of one version of the docs (Docusaurus's `2.x` and `next`, Read the Docs' `3.1`, a
  // tag's `v1.2.0`): the same pages again, a word apart. Never `latest`, `stable` or `main`, which
  // are what a site shows as its docs, nor `v2`, which is as often an API's current version.
  { kind: 'pages of another version', folder: /^(v?\d+(\.(\d+|x))+|next|nightly|canary|unreleased)$/i },
];
export type CrowdingKind = 'release notes' | 'source listings' | 'blog posts' | 'pages of another version';

export interface SuggestedExclusion {
  pattern: string;
  kind: CrowdingKind;
  /** Pages of the index the pattern would keep out. */
  pages: number;
}

/**
 * What an owner may want out of a site's index: the folders of release notes, source listings,
 * blog posts and other versions among `urls` (the pages indexed), as exclude patterns, each with
 * the pages it would keep out; only groups of at least 3 pages that are not the whole site, the
 * largest first. A version folder the crawl's `start` is in is the owner's own version, and is not
 * offered; nor are version folders that hold every page between them (which one to keep is the
 * owner's to say).
 */
export function suggestExclusions(urls: readonly string[], start?: string, most = 5): SuggestedExclusion[] {
  const groups = new Map<string, SuggestedExclusion>();
  for (const url of urls) {
    const parts = new URL(url).pathname.split('/');
    const found = crowdingPattern(parts);
    if (!found) continue;
    const group = groups.get(found.pattern) ?? { ...found, pages: 0 };
    group.pages++;
    groups.set(found.pattern, group);
  }
  const startPath = start ? new URL(start).pathname : '';
  const versions = [...groups.values()].filter((g) => g.kind === 'pages of another version');
  const allVersions = versions.reduce((sum, g) => sum + g.pages, 0) >= urls.length;
  for (const group of versions)
    if (allVersions || startPath.startsWith(group.pattern)) groups.delete(group.pattern);
  return [...groups.values()]
    .filter((g) => g.pages >= 3 && g.pages < urls.length)
    .sort((a, b) => b.pages - a.pages || a.pattern.localeCompare(b.pattern))
    .slice(0, most);
}

/** The pattern of the first crowding folder in a path's parts (or its file's name), if any. */
function crowdingPattern(parts: readonly string[]): { pattern: string; kind: CrowdingKind } | null {
  for (let i = 1; i < parts.length; i++) {
    const file = i === parts.length - 1;
    for (const { kind, folder, file: name } of CROWDING) {
      if (!file && folder?.test(parts[i])) return { pattern: `${parts.slice(0, i + 1).join('/')}/`, kind };
      const prefix = file ? name?.exec(parts[i])?.[1] : undefined;
      if (prefix) return { pattern: `${parts.slice(0, i).join('/')}/${prefix}-`, kind };
    }
  }
  return null;
}
