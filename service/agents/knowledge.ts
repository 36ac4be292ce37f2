import type { Section } from '../docs/types.js';

/**
 * The demo agent's knowledge base when no docs are configured: the project's own documentation,
 * cut into articles so the agent can cite a real source for each answer. Kept as a module (not
 * markdown files read at run time) so the same service runs in Node, in Vite middleware and in
 * the browser.
 */
export interface Article {
  id: string;
  title: string;
  url: string;
  /** Shown under the title in a source; the demo's articles leave it out. */
  subtitle?: string;
  /** Words visitors use for this topic that the text may not ("theme" for theming). */
  keywords: string;
  /** Markdown. */
  body: string;
}

const DOCS = 'https://agent-chat.example/docs';

const ARTICLES: Article[] = [
  {
    id: 'quickstart',
    keywords: 'install setup embed add script tag get started snippet',
    title: 'Quickstart: add agent-chat to a page',
    url: `${DOCS}/quickstart`,
    body: `Three steps get the widget on a page:

1. **Add a session endpoint** to your server with \`createSessionHandler\` from \`agent-chat/server\`. It keeps your API key on the server.
2. **Load the script**: \`<script src="agent-chat.iife.js"></script>\`, or \`import 'agent-chat'\` in a bundled app.
3. **Place the element**:

\`\`\`html
<agent-chat project-id="proj_123" integration-id="int_456"
            session-endpoint="/api/agent-session"></agent-chat>
\`\`\`

No session is requested until the visitor sends a first message.`,
  },
  {
    id: 'session-endpoint',
    keywords: 'session endpoint handler api key server backend express next.js secret owner',
    title: 'The session endpoint and createSessionHandler',
    url: `${DOCS}/server#session-endpoint`,
    body: `The browser never sees your **API key**. Your server exchanges it for a short-lived **session token** (valid for one hour):

\`\`\`ts
import { createSessionHandler } from 'agent-chat/server';

export const POST = createSessionHandler({
  apiKey: process.env.AGENT_API_KEY,
  projectId: 'proj_123',
  baseUrl: 'https://agent.example.com',
  getOwnerId: (request) => currentUserId(request),
});
\`\`\`

- \`getOwnerId\` decides who owns the conversation, from *your* login state. Anything the browser sends about an owner is ignored.
- The handler answers with the service's status and body unchanged, plus \`Cache-Control: no-store\`.
- If the service does not answer in time, the visitor gets a clear 502 error instead of a hanging request.`,
  },
  {
    id: 'tokens',
    keywords: 'token session expiry refresh 401 memory storage',
    title: 'How session tokens are handled in the browser',
    url: `${DOCS}/security#tokens`,
    body: `The widget follows strict token rules:

- **Lazy**: no token is fetched on page load, only when the visitor first needs the service.
- **Cached in memory only**: never in IndexedDB, localStorage or cookies.
- **Refreshed 30 seconds before expiry**, checked when a request needs it.
- **On a 401** the token is discarded, a fresh one fetched and the request retried once.
- **Deduplicated**: five parallel requests cause one token fetch.

Expiry is judged from the lifetime the server granted, so a visitor whose clock is wrong still works.`,
  },
  {
    id: 'attributes',
    keywords: 'attributes configure configuration options properties settings',
    title: 'Configuration attributes',
    url: `${DOCS}/reference#attributes`,
    body: `| Attribute | Meaning |
| --- | --- |
| \`project-id\` | Your Project ID from the dashboard |
| \`integration-id\` | The Integration ID of this agent |
| \`session-endpoint\` | URL of your session endpoint |
| \`base-url\` | Service base URL; defaults to the page's origin |
| \`mode\` | \`launcher\` (floating button, default) or \`inline\` |
| \`theme\` | \`light\`, \`dark\` or \`auto\` |
| \`greeting\` | Text of the start screen |

Instead of \`session-endpoint\` you may set the \`getSessionToken\` property to a function that returns a session.`,
  },
  {
    id: 'events',
    keywords: 'events listen listener callback hooks',
    title: 'Events fired by the widget',
    url: `${DOCS}/reference#events`,
    body: `Every event is named \`agent-chat-<noun>-<verb>\`, bubbles and crosses the shadow root:

- \`agent-chat-message-send\` is **cancelable**: call \`preventDefault()\` to veto a message.
- \`agent-chat-answer-start\` and \`agent-chat-answer-end\` (with an \`outcome\` of complete, aborted or error).
- \`agent-chat-error\` with a \`code\` and a readable \`message\`.
- \`agent-chat-open-change\` and \`agent-chat-thread-change\`.

\`\`\`js
chat.addEventListener('agent-chat-answer-end', (e) => console.log(e.detail.outcome));
\`\`\``,
  },
  {
    id: 'theming',
    keywords: 'theme themes dark light mode colors colours style css branding',
    title: 'Theming with CSS custom properties and parts',
    url: `${DOCS}/theming`,
    body: `Style the widget from your page without touching its internals:

\`\`\`css
agent-chat {
  --agent-chat-color-accent: #7c3aed;
  --agent-chat-font-family: Inter, system-ui, sans-serif;
  --agent-chat-radius: 12px;
}
agent-chat::part(launcher) { box-shadow: none; }
\`\`\`

Set \`theme="dark"\` for the dark token set, or \`theme="auto"\` to follow the visitor's system preference. The widget uses Shadow DOM, so your page's CSS does not leak in and its CSS does not leak out.`,
  },
  {
    id: 'history',
    keywords: 'history threads conversations sidebar resume delete signed in',
    title: 'Conversation history and the sidebar',
    url: `${DOCS}/history`,
    body: `When your session endpoint sets an owner, visitors get a **Conversations** sidebar: list, resume and delete their threads.

- Threads are scoped to the owner: one owner never sees another's threads.
- Anonymous sessions can chat normally; the sidebar then explains that history is available after signing in.
- Deleting a thread removes it everywhere: from the list, from resume and from chat.`,
  },
  {
    id: 'csp',
    keywords: 'csp content security policy headers strict',
    title: 'Content-Security-Policy',
    url: `${DOCS}/security#csp`,
    body: `The widget works under a strict policy with no \`unsafe-inline\` and no \`unsafe-eval\`:

\`\`\`
Content-Security-Policy: default-src 'self'; script-src 'self'; style-src 'self'; connect-src 'self' https://agent.example.com
\`\`\`

Styles are constructable stylesheets, which CSP does not treat as inline styles.`,
  },
  {
    id: 'markdown',
    keywords: 'xss safe html markdown links images sanitize',
    title: 'How answers are rendered safely',
    url: `${DOCS}/security#markdown`,
    body: `Answers are **untrusted**. They are parsed as markdown and rendered as DOM nodes, never through \`innerHTML\`:

- raw HTML in an answer is shown as text;
- links are allowed only for \`http:\`, \`https:\`, \`mailto:\` and relative URLs, and open with \`rel="noopener noreferrer"\`;
- images are not rendered.

Headings, lists, tables, code blocks and inline code are all supported.`,
  },
  {
    id: 'activity',
    keywords: 'analytics activity usage stats metrics deprecated',
    title: 'Activity analytics from your server',
    url: `${DOCS}/server#activity`,
    body: `Query usage from your server with \`createQueryClient\`:

\`\`\`ts
const query = createQueryClient({ apiKey, projectId, baseUrl });
const report = await query.activity({ start: '2026-11-01', end: '2026-11-21' });
console.log(report.totals.threads);
\`\`\`

It uses \`/query/v1/projects/{id}/activity/\`. The old \`analytics/activity\` path was removed after 2026-07-01 and answers **410 Gone** with a link to its successor.`,
  },
  {
    id: 'frameworks',
    keywords: 'react vue angular framework svelte html',
    title: 'Using agent-chat with React, Vue or plain HTML',
    url: `${DOCS}/frameworks`,
    body: `\`<agent-chat>\` is a standard custom element:

- **Plain HTML / CMS**: paste the script tag and the element.
- **React 19**: use it like any element; React 19 passes properties and listens to custom events with \`onagent-chat-answer-end\`-style props.
- **Vue**: tell the compiler that tags starting with \`agent-\` are custom elements (\`compilerOptions.isCustomElement\`).`,
  },
];

/** The articles as sections of their pages (`/docs/security#csp` is a section of `/docs/security`). */
export const KNOWLEDGE: Section[] = ARTICLES.map((article) => ({
  url: article.url,
  pageUrl: article.url.split('#')[0],
  title: article.title,
  headings: [],
  text: article.body,
  keywords: article.keywords,
}));
