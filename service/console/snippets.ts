/** The Install page's snippets: what a site owner pastes, with their project filled in. */
import { LATEST_WIDGET, widgetPath } from '../../contract/paths.js';

export interface SnippetInput {
  projectId: string;
  integrationId: string;
  serviceUrl: string;
  widget: { version: string; file: string; integrity: string } | null;
}

/**
 * The widget from this service (wire contract §12), pinned to the exact release it serves and
 * that file's SRI hash: a browser runs nothing but those bytes.
 */
function script({ serviceUrl, widget }: SnippetInput): string {
  return widget
    ? `<script src="${serviceUrl}${widgetPath(widget.version, widget.file)}"\n        integrity="${widget.integrity}" crossorigin="anonymous"></script>`
    : '<!-- This build of the service serves no widget: copy agent-chat.iife.js from the package’s dist/ to your site. -->\n<script src="/assets/agent-chat.iife.js"></script>';
}

/** The element with the site's own session endpoint (§2). */
export function scriptTag(input: SnippetInput): string {
  return `${script(input)}
<agent-chat project-id="${input.projectId}" integration-id="${input.integrationId}"
            session-endpoint="/api/agent-session"
            base-url="${input.serviceUrl}"></agent-chat>`;
}

/** The element of a public integration (§2b): no session endpoint, the service mints. */
export function publicScriptTag(input: SnippetInput): string {
  return `${script(input)}
${publicElement(input)}`;
}

/**
 * The same through `/widget/latest/` with no hash (decision 655): whatever release the service
 * serves, so a page keeps its chat across upgrades; null when the service serves no widget.
 */
export function publicLatestTag(input: SnippetInput): string | null {
  return input.widget
    ? `<script src="${input.serviceUrl}${widgetPath(LATEST_WIDGET, input.widget.file)}"
        crossorigin="anonymous"></script>
${publicElement(input)}`
    : null;
}

function publicElement(input: SnippetInput): string {
  return `<agent-chat project-id="${input.projectId}" integration-id="${input.integrationId}"
            base-url="${input.serviceUrl}"></agent-chat>`;
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
