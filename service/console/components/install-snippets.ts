/** The Install section's snippets with their words, beside the integrations page that shows them. */
import { html, nothing, type TemplateResult } from 'lit';
import { oneTag, oneTagCsp, oneTagUrl, publicLatestTag, type SnippetInput } from '../snippets.js';

/** Draws one snippet with its Copy button (the page's, which knows what was copied). */
export type SnippetView = (name: string, code: string) => TemplateResult;

/** The CSP line for a pinned tag: the page's policy allows its inline import map by hash. */
export function cspSnippet(snippet: SnippetView, kind: 'public' | '', line: string | null) {
  return line
    ? html`<p class="muted">Under a Content-Security-Policy, allow the service and the import map by its hash (add your site’s own sources):</p>
        ${snippet(kind ? `${kind} CSP header` : 'CSP header', line)}`
    : nothing;
}

/** One script tag that adds the chat itself, for builders that strip elements (decision 745). */
export function oneTagSnippet(snippet: SnippetView, input: SnippetInput) {
  const code = oneTag(input);
  const csp = oneTagCsp(input);
  return code && csp
    ? html`<p class="muted">Paste this one tag into any page on the allowed origins, or a site builder’s custom code: no server code, no API key. It adds the chat itself, so it works where a builder keeps a script but strips the chat’s element; it follows this service’s upgrades, with no hash for the browser to check. Under a Content-Security-Policy, allow the service:</p>
        ${snippet('one script tag', code)}
        ${snippet('one script tag CSP header', csp)}
        <p class="muted">Where a builder asks for a script’s URL, or keeps the tag’s src but removes its data-* attributes (no chat shows, and the browser’s console says the tag has no data-project-id), give it this URL: the same settings, in its query.</p>
        ${snippet('one script URL', oneTagUrl(input) ?? '')}`
    : nothing;
}

/** The public tag without a pin: the page follows this service's upgrades (decision 655). */
export function latestSnippet(snippet: SnippetView, input: SnippetInput) {
  const code = publicLatestTag(input);
  return code
    ? html`<p class="muted">After an upgrade the pinned tag finds no file until you paste the new one. To follow this service’s upgrades instead, paste this tag: it loads whichever release the service serves, with no hash for the browser to check.</p>
        ${snippet('public script tag that follows upgrades', code)}`
    : nothing;
}
