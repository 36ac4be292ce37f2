/** The Install page's snippets: what a site owner pastes, with their project filled in. */

export interface SnippetInput {
  projectId: string;
  integrationId: string;
  serviceUrl: string;
  widget: { version: string; file: string; integrity: string } | null;
}

const CDN = 'https://cdn.jsdelivr.net/npm';

/** The widget from a CDN, pinned to the exact release and its SRI hash (a range would fail the check). */
export function scriptTag({ projectId, integrationId, serviceUrl, widget }: SnippetInput): string {
  const script = widget
    ? `<script src="${CDN}/agent-chat@${widget.version}/dist/${widget.file}"\n        integrity="${widget.integrity}" crossorigin="anonymous"></script>`
    : '<!-- This build of the service does not know the widget release: pin agent-chat@VERSION and its hash from dist/sri.json. -->\n<script src="/assets/agent-chat.iife.js"></script>';
  return `${script}
<agent-chat project-id="${projectId}" integration-id="${integrationId}"
            session-endpoint="/api/agent-session"
            base-url="${serviceUrl}"></agent-chat>`;
}

const options = (
  { projectId, serviceUrl }: SnippetInput,
  getOwnerId: string,
) => `  apiKey: process.env.AGENT_CHAT_API_KEY,   // an API key of ${projectId}; never sent to a browser
  projectId: '${projectId}',
  baseUrl: '${serviceUrl}',
  getOwnerId: ${getOwnerId},`;

export function expressSnippet(input: SnippetInput): string {
  return `import express from 'express';
import { createSessionHandler, toNodeHandler } from 'agent-chat/server/node';

const app = express();
app.post('/api/agent-session', toNodeHandler(createSessionHandler({
${options(input, "(request) => userIdFromYourLogin(request.headers.get('cookie')) ?? null")}
})));`;
}

export function fetchSnippet(input: SnippetInput): string {
  return `// app/api/agent-session/route.js (Next.js, Remix, Hono, Deno, Bun, Workers)
import { createSessionHandler } from 'agent-chat/server';

export const POST = createSessionHandler({
${options(input, 'async (request) => (await yourAuth(request))?.user.id ?? null')}
});`;
}
