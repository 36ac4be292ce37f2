/**
 * robots.txt's path rules (RFC 9309): the crawled site writes both the rules and the links they
 * are matched against, so matching takes time in proportion to them whatever they hold (decision 761).
 */
import { expect, it } from 'vitest';
import { parseRobots } from '../../../../service/docs/robots.js';

const SITE = 'https://docs.example';
const robots = (...lines: string[]) =>
  parseRobots(['User-agent: *', ...lines].join('\n'), `${SITE}/robots.txt`);
const allowed = (rules: ReturnType<typeof parseRobots>, path: string) => rules.allowed(`${SITE}${path}`);

it('matches a prefix, * for any run, $ for the end; the longest rule wins, allow on a tie', () => {
  const rules = robots(
    'Disallow: /private',
    'Allow: /private/open',
    'Disallow: /*.pdf$',
    'Disallow: /a*/b*/c$',
  );
  expect(allowed(rules, '/private/x')).toBe(false);
  expect(allowed(rules, '/private/open/x')).toBe(true);
  expect(allowed(rules, '/docs/manual.pdf')).toBe(false);
  expect(allowed(rules, '/docs/manual.pdf?download=1')).toBe(true);
  expect(allowed(rules, '/a/b/c')).toBe(false);
  expect(allowed(rules, '/a/b/c/d')).toBe(true);
  expect(allowed(rules, '/ab/c/b/c')).toBe(false);
  expect(allowed(rules, '/a/c/b')).toBe(true);
  expect(allowed(robots('Disallow: /x', 'Allow: /x'), '/x')).toBe(true);
  expect(allowed(robots('Disallow: /only$'), '/only')).toBe(false);
  expect(allowed(robots('Disallow: /only$'), '/only/not')).toBe(true);
  expect(allowed(robots('Disallow: /*$'), '/anything')).toBe(false);
});

it("takes a hostile site's many-starred rules on its long links in linear time", () => {
  // With a regular expression, four stars on a link of 400 repeats held the event loop for seconds.
  const timed = (rules: ReturnType<typeof parseRobots>, path: string) => {
    const started = performance.now();
    const result = allowed(rules, path);
    expect(performance.now() - started).toBeLessThan(200);
    return result;
  };
  expect(timed(robots('Disallow: /*a*a*a*a/b'), `/${'a/'.repeat(400)}`)).toBe(true);
  const many = robots(...Array.from({ length: 200 }, (_, i) => `Disallow: /*${'a*'.repeat(100)}/b${i}$`));
  expect(timed(many, `/${'a/'.repeat(4000)}`)).toBe(true);
  expect(timed(many, `/${'a/'.repeat(4000)}b7`)).toBe(false);
});
