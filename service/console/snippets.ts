/** The Install page's snippets: what a site owner pastes, with their project filled in. */
import type { ConsoleInstall } from '../../contract/console.js';
import { LATEST_WIDGET, widgetPath } from '../../contract/paths.js';
import { sha256 } from '../../src/session/sha256.js';

export interface SnippetInput {
  projectId: string;
  integrationId: string;
  serviceUrl: string;
  widget: ConsoleInstall['widget'];
}

/**
 * The import map's JSON: each part and locale file the script imports later, at its URL on this
 * service, with its SRI hash (one entry a line), so a browser runs those only if they are exactly
 * those files too (decision 697). Null when there is no widget or it imports nothing.
 */
function importMapJson({ serviceUrl, widget }: SnippetInput): string | null {
  const parts = Object.entries(widget?.parts ?? {}).sort(([a], [b]) => (a < b ? -1 : 1));
  if (!widget || !parts.length) return null;
  const lines = parts.map(
    ([file, hash]) =>
      `  ${JSON.stringify(`${serviceUrl}${widgetPath(widget.version, file)}`)}: ${JSON.stringify(hash)}`,
  );
  return `{"integrity": {\n${lines.join(',\n')}\n}}`;
}

/**
 * The widget from this service (wire contract §12), pinned to the exact release it serves and
 * that file's SRI hash, after the import map that pins the files it loads later: a browser runs
 * nothing but those bytes.
 */
function script(input: SnippetInput): string {
  const { serviceUrl, widget } = input;
  if (!widget)
    return '<!-- This build of the service serves no widget: copy agent-chat.iife.js from the package’s dist/ to your site. -->\n<script src="/assets/agent-chat.iife.js"></script>';
  const map = importMapJson(input);
  return `${map ? `<script type="importmap">${map}</script>\n` : ''}<script src="${serviceUrl}${widgetPath(widget.version, widget.file)}"
        integrity="${widget.integrity}" crossorigin="anonymous"></script>`;
}

/**
 * The `'sha256-…'` a CSP gives an inline script: the widget's own SHA-256 in plain JavaScript,
 * as a console opened over plain http (not a secure context) has no Web Crypto, and the hash
 * shows beside the text it hashes, synchronously.
 */
const cspHash = (text: string) => btoa(String.fromCharCode(...sha256(new TextEncoder().encode(text))));

/**
 * The Content-Security-Policy a page with the pinned tag needs: scripts from the service and the
 * inline import map by the hash of its exact text, connections to the service (and the page's
 * own origin for a session endpoint). Null without a widget.
 */
export function pinnedCsp(
  input: SnippetInput,
  { sessionEndpoint }: { sessionEndpoint: boolean },
): string | null {
  if (!input.widget) return null;
  const service = new URL(input.serviceUrl).origin;
  const map = importMapJson(input);
  const hash = map ? ` 'sha256-${cspHash(map)}'` : '';
  return `Content-Security-Policy: script-src ${service}${hash}; connect-src ${sessionEndpoint ? "'self' " : ''}${service}`;
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

/**
 * One script tag, nothing else (decision 745): the loader from `/widget/latest/` reads the chat's
 * settings from its data-* and adds the floating chat itself (decision 744), so a site builder
 * that keeps a <script> but strips <agent-chat> or its attributes still shows it. No hash: the
 * loader imports the element from beside itself, which no single tag can pin, and it follows
 * upgrades as 655's tag does. Null when the service serves no widget.
 */
export function oneTag(input: SnippetInput): string | null {
  return input.widget
    ? `<script src="${input.serviceUrl}${widgetPath(LATEST_WIDGET, 'agent-chat.loader.iife.js')}" async
        data-project-id="${input.projectId}" data-integration-id="${input.integrationId}"
        data-base-url="${input.serviceUrl}"></script>`
    : null;
}

/**
 * The one tag's URL with its settings in the query (decision 755), which the loader reads as it
 * reads its data-*: for a builder that asks for a script's URL alone, or keeps a tag's src and
 * strips its data-*. Readable as written (`:` and `/` need no escape in a query; an `&` before
 * these names is no character reference in HTML), so the same text goes in a URL field or a
 * tag's src. Null when the service serves no widget.
 */
export function oneTagUrl(input: SnippetInput): string | null {
  return input.widget
    ? `${input.serviceUrl}${widgetPath(LATEST_WIDGET, 'agent-chat.loader.iife.js')}?project-id=${input.projectId}&integration-id=${input.integrationId}&base-url=${input.serviceUrl}`
    : null;
}

/** The Content-Security-Policy the one tag needs: its scripts and its connections, the service's. */
export function oneTagCsp(input: SnippetInput): string | null {
  if (!input.widget) return null;
  const service = new URL(input.serviceUrl).origin;
  return `Content-Security-Policy: script-src ${service}; connect-src ${service}`;
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
