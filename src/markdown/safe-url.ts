const ALLOWED_PROTOCOLS = new Set(['http:', 'https:', 'mailto:']);

/**
 * The URL to put in an `href`, or `undefined` when it must not become a link.
 * Only http(s), mailto and relative URLs pass. The WHATWG parser does the judging, so the
 * tricks browsers themselves normalize (`java\tscript:`, `JaVaScRiPt:`, leading spaces or
 * control characters) are judged exactly as a browser would follow them.
 */
export function safeHref(
  href: string,
  base = globalThis.document?.baseURI ?? 'https://invalid.example/',
): string | undefined {
  let url: URL;
  try {
    url = new URL(href, base);
  } catch {
    return undefined;
  }
  return ALLOWED_PROTOCOLS.has(url.protocol) ? url.href : undefined;
}
