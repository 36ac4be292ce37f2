import { describe, expect, it } from 'vitest';
import { safeHref } from '../../../src/markdown/safe-url.js';

const BASE = 'https://shop.example/help/';

describe('safeHref', () => {
  it.each([
    ['https://a.test/x?y=1', 'https://a.test/x?y=1'],
    ['http://a.test/', 'http://a.test/'],
    ['mailto:help@a.test', 'mailto:help@a.test'],
    ['/docs', 'https://shop.example/docs'],
    ['page#top', 'https://shop.example/help/page#top'],
    ['//cdn.test/x', 'https://cdn.test/x'],
  ])('allows %s', (href, expected) => {
    expect(safeHref(href, BASE)).toBe(expected);
  });

  it.each([
    'javascript:alert(1)',
    'JaVaScRiPt:alert(1)',
    ' javascript:alert(1)',
    'java\tscript:alert(1)',
    'java\nscript:alert(1)',
    '\u0001javascript:alert(1)',
    'data:text/html,<script>alert(1)</script>',
    'vbscript:msgbox(1)',
    'file:///etc/passwd',
    'blob:https://a.test/uuid',
    'http://[bad',
  ])('blocks %j', (href) => {
    expect(safeHref(href, BASE)).toBeUndefined();
  });
});
