import { describe, expect, it } from 'vitest';
import { ACTIVITY_COUNTS, noActivity, sumActivity } from '../../../contract/activity.js';

describe('sumActivity', () => {
  it('adds every count into the first and returns it, leaving the second as it was', () => {
    const into = noActivity();
    const more = {
      ...noActivity(),
      sessions: 1,
      threads: 2,
      messages: 3,
      upvotes: 4,
      downvotes: 5,
      prompt_tokens: 60,
      completion_tokens: 7,
    };
    expect(sumActivity(into, more)).toBe(into);
    sumActivity(into, more);
    expect(into).toEqual({
      sessions: 2,
      threads: 4,
      messages: 6,
      upvotes: 8,
      downvotes: 10,
      prompt_tokens: 120,
      completion_tokens: 14,
    });
    expect(more.sessions).toBe(1);
  });

  it('reads only the counts of a row that carries more (a day, an integration)', () => {
    const row = { ...noActivity(), messages: 2, day: 20_413, integrationId: 'web' };
    expect(sumActivity(noActivity(), row)).toEqual({ ...noActivity(), messages: 2 });
  });

  it('lists every count once, in the order reports show them', () => {
    expect(ACTIVITY_COUNTS).toEqual(Object.keys(noActivity()));
  });
});
