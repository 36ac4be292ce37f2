import { describe, expect, it } from 'vitest';
import { AGENT_LANGUAGES, agentLanguage, phrasesFor } from '../../../../service/agents/phrases.js';
import { OpenAiAgent, StaticDocs } from '../../../../service/node.js';
import { AGENT, allRecords, makeService } from '../../../fixtures/service.js';
import { answers, upstream } from '../../../fixtures/model-upstream.js';

const OPEN_PAGE = {
  name: 'open_page',
  description: 'Opens a page of the site',
  parameters: { type: 'object', properties: { page: { type: 'string' } } },
};
const WIDGET_LANGUAGES = [
  'en',
  'ar',
  'de',
  'es',
  'fr',
  'he',
  'it',
  'ja',
  'ko',
  'nl',
  'pl',
  'pt',
  'sv',
  'tr',
  'zh',
];

async function ask(ctx: ReturnType<typeof makeService>, token: string, body: Record<string, unknown>) {
  const records = await allRecords(
    await ctx.call('POST', `${AGENT}/chat/`, { token, body: { integration_id: 'int_demo', ...body } }),
  );
  return {
    records,
    text: records
      .filter((r) => r.type === 'partial_answer')
      .map((r) => r.content.text)
      .join(''),
    steps: records.filter((r) => r.type === 'agent_activity_update').map((r) => r.content.summary as string),
  };
}

describe("the demo agent in the visitor's language", () => {
  it("has a phrasebook for each of the widget's 15 languages", () => {
    expect([...AGENT_LANGUAGES].sort()).toEqual([...WIDGET_LANGUAGES].sort());
  });

  it.each(WIDGET_LANGUAGES)(
    '%s: step summaries and the no-match answer are in that language, in plain words',
    async (language) => {
      const ctx = makeService();
      const token = await ctx.session('alice');
      const found = await ask(ctx, token, { message: 'How do I theme the widget?', locale: language });
      const missing = await ask(ctx, token, {
        message: 'Tell me about the weather in Paris',
        locale: language,
      });
      const phrases = phrasesFor(language);
      expect(found.steps[0]).toBe(phrases.searching('How do I theme the widget?'));
      expect(found.steps[1]).toBe(phrases.found(1));
      expect(missing.steps[1]).toBe(phrases.found(0));
      const searched = phrases.searched('pg_cancel_backend');
      expect(searched).toContain('pg_cancel_backend');
      expect(searched).not.toBe(phrases.searching('pg_cancel_backend'));
      expect(missing.text.startsWith(phrases.notFound)).toBe(true);
      for (const text of [...found.steps, ...missing.steps, missing.text, searched])
        expect(text).not.toMatch(/\(s\)|relevant article|undefined|\{\w+\}/);
      if (language !== 'en') {
        // Nothing falls back to English by accident.
        expect(found.steps[1]).not.toBe(phrasesFor('en').found(1));
        expect(searched).not.toBe(phrasesFor('en').searched('pg_cancel_backend'));
        expect(missing.text).not.toContain("couldn't find");
      }
    },
  );

  it("writes the count in the language's plural forms", () => {
    expect(
      ['en', 'de', 'pl', 'ar', 'he', 'ja'].map((l) => [1, 2, 5, 22].map((n) => phrasesFor(l).found(n))),
    ).toEqual([
      ['Found 1 article', 'Found 2 articles', 'Found 5 articles', 'Found 22 articles'],
      ['1 Artikel gefunden', '2 Artikel gefunden', '5 Artikel gefunden', '22 Artikel gefunden'],
      ['Znaleziono 1 artykuł', 'Znaleziono 2 artykuły', 'Znaleziono 5 artykułów', 'Znaleziono 22 artykuły'],
      ['تم العثور على مقال واحد', 'تم العثور على مقالين', 'تم العثور على 5 مقالات', 'تم العثور على 22 مقالًا'],
      ['נמצא מאמר אחד', 'נמצאו שני מאמרים', 'נמצאו 5 מאמרים', 'נמצאו 22 מאמרים'],
      [
        '1 件の記事が見つかりました',
        '2 件の記事が見つかりました',
        '5 件の記事が見つかりました',
        '22 件の記事が見つかりました',
      ],
    ]);
    expect(phrasesFor('en').found(0)).toBe('No matching articles');
  });

  it('falls back from a region or script to its language, and to English for a language it does not speak', () => {
    expect(agentLanguage('pt-BR')).toBe('pt');
    expect(agentLanguage('zh-Hant-TW')).toBe('zh');
    expect(agentLanguage('ru')).toBe('en');
    expect(agentLanguage(undefined)).toBe('en');
  });

  it("says what a tool did in the tool's own terms, never its wire name", () => {
    const en = phrasesFor('en');
    const call = (name: string, args: Record<string, unknown> = {}) => ({ id: 'c', name, arguments: args });
    expect(en.toolDone([call('open_page', { page: 'pricing' })])).toBe('I opened the pricing page.');
    expect(en.toolDone([call('add_to_cart', { item: 'socks' })])).toBe('I added socks to the cart.');
    expect(en.toolDone([call('go_to_page', { page: 'pricing' })])).toBe('I went to the pricing page.');
    expect(en.toolDone([call('searchDocs', { query: 'theming' })])).toBe(
      'I searched the docs for “theming”.',
    );
    expect(en.toolDone([call('open_cart'), call('stop_video')])).toBe(
      'I opened the cart and stopped the video.',
    );
    expect(en.toolDone([call('set_theme', { theme: 'dark' }), call('copy_link'), call('show_map')])).toBe(
      'I set the dark theme, copied the link and showed the map.',
    );
    // Nothing to name: a plain sentence, not "I logouted".
    expect(en.toolDone([call('logout')])).toBe('Done. Anything else I can help with?');
    expect(en.toolFailed(call('open_page', { page: 'pricing' }), 'no such page.')).toBe(
      "I couldn't open the pricing page: no such page.",
    );
    expect(en.toolDenied(call('open_page', { page: 'pricing' }))).toBe("OK, I won't open the pricing page.");
    const de = phrasesFor('de');
    expect(de.toolDone([call('open_page', { page: 'pricing' })])).toBe(
      'Erledigt. Kann ich sonst noch helfen?',
    );
    expect(de.toolFailed(call('open_page'), 'no such page')).toBe('Das hat nicht geklappt: no such page.');
  });

  it("runs a tool round in the visitor's language: the call, then the answer after the result", async () => {
    const ctx = makeService();
    const token = await ctx.session('alice');
    const first = await ask(ctx, token, {
      message: 'Open the pricing page',
      tools: [OPEN_PAGE],
      locale: 'fr',
    });
    const end = first.records.at(-1)!;
    expect(end.type).toBe('tool_calls');
    const [call] = end.content.tool_calls as { id: string }[];
    const done = await ask(ctx, token, {
      thread_id: first.records[0].content.thread_id,
      tool_results: [{ tool_call_id: call.id, output: { ok: true } }],
      tools: [OPEN_PAGE],
      locale: 'fr',
    });
    expect(done.text).toBe('C’est fait. Puis-je vous aider pour autre chose ?');
    expect(done.text).not.toContain('open_page');
  });
});

describe("the model agent is told the visitor's language", () => {
  async function systemPromptFor(locale?: string) {
    const model = await upstream(answers(['ok']));
    const agent = new OpenAiAgent({ baseUrl: model.baseUrl, model: 'm', docs: new StaticDocs([]) });
    const ctx = makeService({ agent });
    await ask(ctx, await ctx.session(), { message: 'hello', ...(locale && { locale }) });
    return (model.requests[0] as { messages: { content: string }[] }).messages[0].content;
  }

  it('in a language the agents have words for, with its own "not in the docs" sentence', async () => {
    const prompt = await systemPromptFor('ja');
    expect(prompt).toContain('The visitor reads Japanese (ja): write your answer in that language');
    expect(prompt).toContain('say "ドキュメントには該当する情報が見つかりませんでした。" and nothing else');
  });

  it('in any other language, by name', async () => {
    const prompt = await systemPromptFor('ru');
    expect(prompt).toContain('The visitor reads Russian (ru)');
    expect(prompt).toContain('say in one short sentence that the documents do not cover it');
  });

  it('without a locale, as before', async () => {
    const prompt = await systemPromptFor();
    expect(prompt).not.toContain('The visitor reads');
    expect(prompt).toContain('say "I couldn\'t find that in the docs." and nothing else');
  });
});
