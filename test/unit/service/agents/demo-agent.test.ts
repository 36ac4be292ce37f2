import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { DemoAgent } from '../../../../service/index.js';
import { sleep } from '../../../../service/agents/demo.js';
import { chatRecords, makeService, textOf } from '../../../fixtures/service.js';

describe('DemoAgent', () => {
  it('answers from the docs with the sources it used', async () => {
    const { chat, session } = makeService();
    const { events, text } = await chat(await session(), 'How do I keep my API key out of the browser?');
    const sources = events.find((e) => e.type === 'sources');
    expect(sources?.type === 'sources' && sources.sources.map((s) => s.source_url)).toContain(
      'https://agent-chat.example/docs/server#session-endpoint',
    );
    expect(text).toContain('createSessionHandler');
  });

  it.each([
    ['how do I theme it', '/docs/theming'],
    ['dark mode?', '/docs/theming'],
    ['is it safe against XSS', '/docs/security#markdown'],
    ['can I delete a conversation', '/docs/history'],
  ])('finds the right article for %j despite stopwords', async (question, path) => {
    expect((await new DemoAgent().search(question))[0]?.section.url).toBe(
      `https://agent-chat.example${path}`,
    );
  });

  it('cites the session endpoint article for the session endpoint, not the token one', async () => {
    const { chat, session } = makeService();
    const { events } = await chat(await session(), 'How does the session endpoint work?');
    const sources = events.find((e) => e.type === 'sources');
    expect(sources?.type === 'sources' && sources.sources[0].source_url).toBe(
      'https://agent-chat.example/docs/server#session-endpoint',
    );
  });

  it.each(['How does the session endpoint work?', 'how do I theme it', 'Which events are there?'])(
    'answers %j with the section itself, not a heading repeating the source title',
    async (question) => {
      const { chat, session } = makeService();
      const { events, text } = await chat(await session(), question);
      const sources = events.find((e) => e.type === 'sources');
      const title = sources?.type === 'sources' ? sources.sources[0].title : '';
      expect(title).not.toBe('');
      expect(text).not.toMatch(/^#/);
      expect(text.split('\n')[0]).not.toContain(title);
    },
  );

  it('says plainly when nothing matches, with no sources', async () => {
    const { chat, session } = makeService();
    const { events, text } = await chat(await session(), 'zebra quantum lasagna');
    expect(events.some((e) => e.type === 'sources')).toBe(false);
    expect(text).toContain("I couldn't find that in the docs");
    // On this widget's own articles it says what they cover.
    expect(text).toContain('**session endpoint**');
  });
});

describe('the demo agent is honest', () => {
  it('answers an off-topic question with "I couldn\'t find that in the docs" and no sources', async () => {
    const ctx = makeService();
    const { records } = await chatRecords(ctx, await ctx.session(), {
      message: 'Tell me about the weather in Paris',
    });
    expect(records.some((r) => r.type === 'relevant_sources')).toBe(false);
    expect(textOf(records)).toMatch(/^I couldn't find that in the docs\./);
  });

  it('still answers a short on-topic follow-up', async () => {
    expect((await new DemoAgent().search('And theming?'))[0]?.section.url).toBe(
      'https://agent-chat.example/docs/theming',
    );
  });
});

describe('DemoAgent: sleep', () => {
  it('leaves no abort listener behind, however many words it waits for', async () => {
    const controller = new AbortController();
    for (let i = 0; i < 50; i++) await sleep(0, controller.signal);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    const pending = sleep(10_000, controller.signal);
    controller.abort(new Error('stop'));
    await expect(pending).rejects.toThrow('stop');
  });
});
