import { describe, expect, it } from 'vitest';
import { KEPT_FOR_MS, MAX_KEPT_THREADS, bounded, summaryOf } from '../../../src/chat/kept-threads.js';
import type { ThreadSummary } from '../../../src/api/types.js';
import type { ChatMessage } from '../../../src/chat/types.js';

const NOW = Date.parse('2025-06-01T12:00:00Z');
const row = (id: string, ageMs: number): ThreadSummary => {
  const at = new Date(NOW - ageMs).toISOString();
  return { id, title: id, created_at: at, updated_at: at };
};
const message = (role: 'user' | 'assistant', content: string): ChatMessage => ({
  id: `${role}-${content}`,
  role,
  content,
  sources: [],
  status: 'complete',
});

describe("a public visitor's kept conversations (decision 518)", () => {
  it(`keeps the ${MAX_KEPT_THREADS} newest, newest first, and drops the rest`, () => {
    const rows = Array.from({ length: MAX_KEPT_THREADS + 3 }, (_, i) => row(`th_${i}`, (i + 1) * 60_000));
    const { threads, dropped } = bounded([...rows].reverse(), NOW);
    expect(threads.map((t) => t.id)).toEqual(rows.slice(0, MAX_KEPT_THREADS).map((t) => t.id));
    expect(dropped).toEqual(['th_20', 'th_21', 'th_22']);
  });

  it('drops a conversation untouched for 30 days, keeps one touched just within them', () => {
    const { threads, dropped } = bounded([row('old', KEPT_FOR_MS), row('recent', KEPT_FOR_MS - 60_000)], NOW);
    expect(threads.map((t) => t.id)).toEqual(['recent']);
    expect(dropped).toEqual(['old']);
  });

  it('names a row by its first question and previews its first answer, one line each; a title given stays', () => {
    const messages = [
      message('user', 'How do I\n theme  it?'),
      message('assistant', 'Style the widget'.repeat(20)),
    ];
    const fresh = summaryOf('th_1', messages, undefined, NOW);
    expect(fresh).toMatchObject({
      id: 'th_1',
      title: 'How do I theme it?',
      updated_at: new Date(NOW).toISOString(),
    });
    expect(fresh.preview).toHaveLength(120);
    const renamed = { ...fresh, title: 'Theming', created_at: '2025-05-30T00:00:00.000Z' };
    expect(summaryOf('th_1', messages, renamed, NOW + 1000)).toMatchObject({
      title: 'Theming',
      created_at: '2025-05-30T00:00:00.000Z',
      updated_at: new Date(NOW + 1000).toISOString(),
    });
  });
});
