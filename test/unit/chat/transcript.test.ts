import { describe, expect, it } from 'vitest';
import {
  handoffHref,
  handoffTriggers,
  offersHandoff,
  transcriptMarkdown,
  MAILTO_BODY_LIMIT,
} from '../../../src/chat/transcript.js';
import type { ChatMessage } from '../../../src/chat/types.js';

const q: ChatMessage = {
  id: '1',
  role: 'user',
  content: 'How?\n# not a heading',
  sources: [],
  status: 'sent',
};
const a: ChatMessage = {
  id: '2',
  role: 'assistant',
  content: 'Like **this**.',
  sources: [{ title: 'Docs', subtitle: null, source_url: 'https://d.example/x', source_type: 'doc' }],
  status: 'complete',
  questionAnswerId: 'qa1',
};

describe('transcriptMarkdown', () => {
  it('quotes the visitor, keeps the answer markdown and lists sources', () => {
    expect(transcriptMarkdown([q, a], { title: 'Help' })).toBe(
      '# Help\n\n**You**\n\n> How?\n> # not a heading\n\n---\n\n**Assistant**\n\nLike **this**.\n\nSources:\n- [Docs](https://d.example/x)\n',
    );
  });

  it('is written in the words it is given (the widget passes its language)', () => {
    const text = transcriptMarkdown([q, a], {
      title: 'Hilfe',
      you: 'Sie',
      assistant: 'Assistent',
      sources: 'Quellen',
    });
    expect(text).toContain('# Hilfe');
    expect(text).toContain('**Sie**');
    expect(text).toContain('**Assistent**');
    expect(text).toContain('Quellen:\n- [Docs]');
    expect(text).not.toMatch(/You|Sources/);
  });
});

describe('handoffHref', () => {
  it('puts the transcript in the fragment of an https URL, never in its query', () => {
    const href = handoffHref('https://help.example/c?x=1', '# T')!;
    const url = new URL(href);
    expect(url.search).toBe('?x=1');
    expect(url.hash).toBe('#transcript=%23%20T');
  });

  it('gives mailto: a subject and a body, cut to a length mail clients open', () => {
    const href = handoffHref('mailto:help@example.com', 'x'.repeat(5000))!;
    const params = new URLSearchParams(href.slice(href.indexOf('?')));
    expect(params.get('subject')).toBe('Conversation with the assistant');
    expect(params.get('body')!.length).toBeLessThan(MAILTO_BODY_LIMIT + 10);
  });

  it('refuses other schemes', () => {
    expect(handoffHref('javascript:alert(1)', 't')).toBeUndefined();
    expect(handoffHref('http://plain.example/', 't')).toBeUndefined();
  });
});

describe('offersHandoff', () => {
  it('follows each trigger', () => {
    expect(offersHandoff(handoffTriggers('always'), a)).toBe(true);
    expect(offersHandoff(handoffTriggers('uncertainty'), a)).toBe(false);
    expect(offersHandoff(handoffTriggers('uncertainty'), { ...a, uncertain: true })).toBe(true);
    expect(offersHandoff(handoffTriggers('downvote bogus'), { ...a, reaction: 'downvote' })).toBe(true);
    expect(offersHandoff(handoffTriggers(''), { ...a, reaction: 'downvote' })).toBe(false);
    expect(offersHandoff(handoffTriggers('always'), { ...a, status: 'streaming' })).toBe(false);
  });
});
