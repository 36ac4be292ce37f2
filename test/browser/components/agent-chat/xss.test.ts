import { describe, expect } from 'vitest';
import { http, HttpResponse } from 'msw';
import { test } from '../../../msw/test.js';
import { SERVICE_BASE } from '../../../msw/reference.js';
import { encodeRecord, STREAM_HEADERS, streamBody } from '../../../msw/stream.js';
import { deepElements, fixtureChat, lastAnswerText, settled } from '../../../helpers/chat-fixture.js';

const CHAT_URL = `${SERVICE_BASE}/agent/v1/projects/proj_demo/agent/chat/`;

const ATTACK = `# Totally normal answer

<script>window.__xss = 'script'</script>

<img src=x onerror="window.__xss = 'img'">

<svg onload="window.__xss = 'svg'"><circle r="1"/></svg>

<iframe src="javascript:window.__xss='iframe'"></iframe>

<a href="javascript:window.__xss='raw-a'">raw anchor</a> <b onmouseover="window.__xss='b'">bold</b>

<details open ontoggle="window.__xss='details'"><summary>x</summary></details>

<style>* { display: none !important }</style>

Links: [js](javascript:window.__xss='js') [mixed](JaVaScRiPt:window.__xss='mixed')
[tab](java\tscript:window.__xss='tab') [space]( javascript:window.__xss='space')
[angle](<javascript:window.__xss='angle'>) [entity](&#106;avascript:window.__xss='entity')
[data](data:text/html,<script>window.__xss='data'</script>) [vb](vbscript:msgbox(1))
[ref link][evil] and <javascript:window.__xss='autolink'>

[evil]: javascript:window.__xss='ref'

[ref entity][evil2] and ![img link](javascript:window.__xss='img-js')

[evil2]: &#x6A;avascript:window.__xss='ref-entity'

| cell | vector |
|---|---|
| <img src=x onerror="window.__xss='cell'"> | [cell link](javascript:window.__xss='cell-link') |

- [x] <b onclick="window.__xss='task'">task</b>
- www.example.com/"onmouseover="window.__xss='www' and javascript:window.__xss='bare'

Good: [site](https://example.com/a?b=1) [mail](mailto:help@example.com) [docs](/docs/page)

![tracker](https://evil.example/pixel.png)

\`<script>in code</script>\`

\`\`\`html
<img src=x onerror=alert(1)>
\`\`\`
`;

/** Splits the attack into 7-character chunks, so tags and URLs straddle chunk borders. */
function attackRecords(): string[] {
  const deltas = ATTACK.match(/[\s\S]{1,7}/g)!;
  return [
    encodeRecord('stream_start', { thread_id: 'th_x' }),
    encodeRecord('relevant_sources', {
      relevant_sources: [
        {
          title: 'evil source',
          subtitle: null,
          source_url: "javascript:window.__xss='source'",
          source_type: 'doc',
        },
        { title: 'good source', subtitle: null, source_url: 'https://docs.example/good', source_type: 'doc' },
      ],
    }),
    ...deltas.map((text) => encodeRecord('partial_answer', { text })),
    encodeRecord('identifiers', { thread_id: 'th_x', question_answer_id: 'qa' }, true),
  ];
}

function assertSafe(root: Element) {
  const elements = deepElements(root.shadowRoot!);
  // Where agent output lands: each message's body (text and sources). The widget's own chrome
  // around it (icons, the feedback form) is not agent output.
  const messages = deepElements(
    root.shadowRoot!.querySelector('agent-chat-message-list')!.shadowRoot!,
  ).filter((el) => el.tagName === 'AGENT-CHAT-MESSAGE');
  const conversation = messages.flatMap((m) =>
    Array.from(m.shadowRoot!.querySelectorAll('[part="bubble"]')).flatMap((body) => [
      body,
      ...deepElements(body),
    ]),
  );
  expect(conversation.length).toBeGreaterThan(0);
  // A task item's checkbox is the one input markdown makes: disabled, so never a form control.
  const inert = (el: Element) =>
    el instanceof HTMLInputElement && el.type === 'checkbox' && el.disabled && !el.name;
  const forbidden = conversation.filter(
    (el) =>
      ['script', 'img', 'svg', 'iframe', 'object', 'embed', 'details', 'style', 'form', 'input'].includes(
        el.tagName.toLowerCase(),
      ) && !inert(el),
  );
  expect(forbidden.map((el) => el.tagName)).toEqual([]);
  const handlers = elements.flatMap((el) =>
    el
      .getAttributeNames()
      .filter((name) => name.toLowerCase().startsWith('on'))
      .map((name) => `${el.tagName}[${name}]`),
  );
  expect(handlers).toEqual([]);
  for (const anchor of elements.filter((el): el is HTMLAnchorElement => el instanceof HTMLAnchorElement)) {
    expect(['http:', 'https:', 'mailto:'], anchor.getAttribute('href') ?? '').toContain(
      new URL(anchor.href).protocol,
    );
    expect(anchor.rel).toContain('noopener');
    expect(anchor.rel).toContain('noreferrer');
  }
}

describe('<agent-chat> with a hostile answer', () => {
  test('renders XSS vectors as inert text, never as markup or unsafe links', async ({ worker, backend }) => {
    const win = window as unknown as { __xss?: string };
    delete win.__xss;
    worker.use(
      http.post(CHAT_URL, () => new HttpResponse(streamBody(attackRecords()), { headers: STREAM_HEADERS })),
    );
    const el = await fixtureChat();

    // Check while streaming too: half-received tags must be as inert as whole ones.
    const checks: Promise<void>[] = [];
    el.addEventListener('agent-chat-answer-start', () => {
      checks.push(
        new Promise((resolve, reject) =>
          requestAnimationFrame(() => {
            try {
              assertSafe(el);
              resolve();
            } catch (error) {
              reject(error);
            }
          }),
        ),
      );
    });
    await el.send('tell me something');
    await settled(el);
    await Promise.all(checks);
    assertSafe(el);

    // Let any queued handler (onerror, onload) run before judging.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(win.__xss).toBeUndefined();

    const text = lastAnswerText(el);
    expect(text).toContain("<script>window.__xss = 'script'</script>");
    expect(text).toContain('<img src=x onerror=');
    // The image shows as its alt text: never loaded, never a link to the pixel.
    expect(text).toContain('tracker');
    expect(text).not.toContain('pixel.png');
    const answer = deepElements(el.shadowRoot!)
      .filter((e) => e.tagName === 'AGENT-CHAT-MESSAGE')
      .at(-1)!;
    const hrefs = Array.from(answer.shadowRoot!.querySelectorAll('a')).map((a) => a.getAttribute('href'));
    expect(hrefs).toEqual([
      // The GFM autolink ends at the space; its quotes are only URL characters in an attribute value.
      "http://www.example.com/%22onmouseover=%22window.__xss='www",
      'https://example.com/a?b=1',
      'mailto:help@example.com',
      `${location.origin}/docs/page`,
      'https://docs.example/good',
    ]);
  });
});
