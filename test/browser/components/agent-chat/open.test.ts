/** open({query, submit}): the question filled in, and sent on request. */
import { describe, expect } from 'vitest';
import { test } from '../../../msw/test.js';
import { fixtureChat, nextAnswerEnd, textareaOf } from '../../../helpers/chat-fixture.js';

describe('<agent-chat> open()', () => {
  test('open({query}) fills the question in; open({query, submit: true}) sends it', async ({ backend }) => {
    const el = await fixtureChat({ mode: 'launcher' });
    await el.open({ query: 'How do I install it?' });
    expect(el.opened).toBe(true);
    expect(textareaOf(el).value).toBe('How do I install it?');
    expect(backend.chatRequests()).toHaveLength(0);
    const ended = nextAnswerEnd(el);
    await el.open({ query: 'How do I theme it?', submit: true });
    await ended;
    expect((await backend.chatRequests()[0].clone().json()).message).toBe('How do I theme it?');
  });
});
