/**
 * The classic-script build's public session: `agent-chat.public-session.js`, an ES module built
 * with the ES files and served beside the script, imported by URL when first needed, so the
 * script itself does not carry it. It imports nothing, so it shares no class with the script.
 */
const here = (document.currentScript as HTMLScriptElement | null)?.src ?? location.href;

export const loadPublicSession = () =>
  import(/* @vite-ignore */ new URL('agent-chat.public-session.js', here).href) as Promise<
    typeof import('./public-session.js')
  >;
