import { describe, expect, it } from 'vitest';
import {
  excludedUrl,
  exclusionMatcher,
  exclusionProblem,
  splitExclusions,
  suggestExclusions,
} from '../../../../service/docs/exclusions.js';

describe('exclude patterns', () => {
  it('match a path prefix, as a robots.txt rule does', () => {
    const match = exclusionMatcher(['/blog/', '/changelog']);
    expect(match('/blog/')).toBe('/blog/');
    expect(match('/blog/2026/launch.html')).toBe('/blog/');
    expect(match('/changelog.html')).toBe('/changelog');
    expect(match('/docs/blog/')).toBeNull();
    expect(match('/blog')).toBeNull();
  });

  it('take * for any characters, slashes included', () => {
    const match = exclusionMatcher(['/*/_modules/', '*/whatsnew/']);
    expect(match('/en/5.0/_modules/django/db/models.html')).toBe('/*/_modules/');
    expect(match('/_modules/x.html')).toBeNull();
    expect(match('/3.12/whatsnew/3.12.html')).toBe('*/whatsnew/');
    expect(match('/whatsnew/index.html')).toBe('*/whatsnew/');
    expect(match('/library/whats-new.html')).toBeNull();
  });

  it('treat the other characters literally', () => {
    const match = exclusionMatcher(['/a.b/(x)+']);
    expect(match('/a.b/(x)+/page')).toBe('/a.b/(x)+');
    expect(match('/aXb/(x)+/page')).toBeNull();
  });

  it('take the most stars on the longest path in linear time', () => {
    // A site's links are the paths: with a regular expression, four stars on a path of 400
    // repeats of their words took 13 s of the event loop, and each more star multiplied it.
    const timed = (match: ReturnType<typeof exclusionMatcher>, path: string) => {
      const started = performance.now();
      const found = match(path);
      expect(performance.now() - started).toBeLessThan(200);
      return found;
    };
    const four = exclusionMatcher(['*/a*/a*/a*/a/b']);
    expect(timed(four, '/a'.repeat(400))).toBeNull();
    const stars = `*${'/a*'.repeat(99)}/b`;
    const most = exclusionMatcher([
      ...Array.from({ length: 49 }, (_, i) => `${stars}${i}`),
      '*/a*/a*/a*/a/b',
    ]);
    expect(timed(most, '/a'.repeat(4000))).toBeNull();
    expect(timed(most, `${'/a'.repeat(4000)}/b/c`)).toBe('*/a*/a*/a*/a/b');
    // Each star takes the shortest run that lets the rest match: a star between two stars is not greedy.
    expect(exclusionMatcher(['/*/x/*/y'])('/p/x/q/x/r/y/z')).toBe('/*/x/*/y');
    expect(exclusionMatcher(['*x*y'])('/yx')).toBeNull();
    expect(exclusionMatcher(['/**'])('/')).toBe('/**');
  });

  it('match the path of a URL, without its query or fragment, encoded or not', () => {
    const match = exclusionMatcher(['/release notes/', '/search']);
    expect(excludedUrl(match, 'https://docs.example/release%20notes/1.html?x=1#top')).toBe('/release notes/');
    expect(excludedUrl(match, 'https://docs.example/guide/?q=/search')).toBeNull();
    expect(excludedUrl(exclusionMatcher([]), 'https://docs.example/anything')).toBeNull();
  });

  it('are checked: at most 50, each at most 200 characters, starting with / or *', () => {
    expect(exclusionProblem(['/blog/', '*/old/'])).toBeNull();
    expect(exclusionProblem(['/blog/', 'blog/'])).toBe(
      'The exclude pattern "blog/" must start with / or * (a path on the site, like /blog/).',
    );
    expect(exclusionProblem([`/${'a'.repeat(200)}`])).toMatch(
      /^The exclude pattern \/a+… is over 200 characters\.$/,
    );
    expect(exclusionProblem(Array.from({ length: 51 }, (_, i) => `/p${i}/`))).toBe(
      'At most 50 exclude patterns (51 given).',
    );
    expect(exclusionProblem(['/a b/'])).toBe('The exclude pattern "/a b/" has a space in it.');
    expect(exclusionProblem([3])).toBe('Each exclude pattern is a string.');
  });

  it('are read from lines or commas, trimmed, without blanks or repeats', () => {
    expect(splitExclusions(' /blog/\n\n/releases/, /_modules/ \r\n/blog/')).toEqual([
      '/blog/',
      '/releases/',
      '/_modules/',
    ]);
    expect(splitExclusions(['/a/,/b/', '/c/'])).toEqual(['/a/', '/b/', '/c/']);
  });
});

describe('suggested exclusions', () => {
  const site = (paths: string[]) => paths.map((p) => `https://docs.acme.test${p}`);

  it('finds release notes, source listings and blogs by folder or file name, with the pages each keeps out', () => {
    const urls = site([
      '/docs/intro.html',
      '/docs/guide/install.html',
      ...['3.0', '3.1', '3.2', '4.0'].map((v) => `/docs/releases/${v}.html`),
      ...['15-1', '15-2', '15-3'].map((v) => `/docs/release-${v}.html`),
      ...['a', 'b', 'c'].map((m) => `/docs/_modules/acme/${m}.html`),
      '/blog/one.html',
      '/blog/two.html',
    ]);
    expect(suggestExclusions(urls)).toEqual([
      { pattern: '/docs/releases/', kind: 'release notes', pages: 4 },
      { pattern: '/docs/_modules/', kind: 'source listings', pages: 3 },
      { pattern: '/docs/release-', kind: 'release notes', pages: 3 },
    ]);
    // Each pattern keeps out exactly the pages it counted.
    for (const { pattern, pages } of suggestExclusions(urls))
      expect(urls.filter((u) => excludedUrl(exclusionMatcher([pattern]), u))).toHaveLength(pages);
  });

  it("offers other versions' folders, but never the one the crawl starts in, latest or stable, or an API's v2", () => {
    const pages = (folder: string) => ['intro', 'install', 'config'].map((p) => `${folder}${p}.html`);
    const urls = site([
      ...pages('/docs/'),
      ...pages('/docs/2.x/'),
      ...pages('/docs/next/'),
      ...pages('/docs/v1.4.0/'),
      ...pages('/api/v2/'),
    ]);
    expect(suggestExclusions(urls).map((s) => [s.pattern, s.kind])).toEqual([
      ['/docs/2.x/', 'pages of another version'],
      ['/docs/next/', 'pages of another version'],
      ['/docs/v1.4.0/', 'pages of another version'],
    ]);
    expect(suggestExclusions(urls, 'https://docs.acme.test/docs/2.x/').map((s) => s.pattern)).toEqual([
      '/docs/next/',
      '/docs/v1.4.0/',
    ]);
    const readTheDocs = site([...pages('/en/latest/'), ...pages('/en/stable/'), ...pages('/en/3.1/')]);
    expect(suggestExclusions(readTheDocs, 'https://docs.acme.test/')).toEqual([
      { pattern: '/en/3.1/', kind: 'pages of another version', pages: 3 },
    ]);
    // Every page in one version or another: which to keep is the owner's to say.
    expect(suggestExclusions(site([...pages('/1.0/'), ...pages('/2.0/')]))).toEqual([]);
  });

  it('suggests nothing for a site that is all one kind, or for fewer than 3 pages', () => {
    expect(suggestExclusions(site(['/news/a.html', '/news/b.html', '/news/c.html']))).toEqual([]);
    expect(suggestExclusions(site(['/index.html', '/whatsnew/a.html', '/whatsnew/b.html']))).toEqual([]);
  });
});
