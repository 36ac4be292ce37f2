import { NO_OWNER, publicBase } from '../../contract/paths.js';
import {
  NetworkError,
  PublicSessionError,
  SessionError,
  errorFromResponse,
  isAbortError,
} from '../api/errors.js';
import { sessionFromResponse } from './endpoint-source.js';
import { loadPublicSession } from './public-session-loader.js';
import type { TokenSource } from './types.js';

export interface PublicSourceOptions {
  baseUrl: string;
  projectId: string;
  integrationId: string;
  fetch?: typeof fetch;
}

/**
 * What the public session's module uses of the widget's own code: handed to it, never imported
 * by it, so the classic script's copy of each class is the one the visitor's error is made of.
 */
const KIT = {
  errorFromResponse,
  isAbortError,
  sessionFromResponse,
  NetworkError,
  PublicSessionError,
  SessionError,
};
export type PublicSessionKit = typeof KIT;

const LOAD_FAILED =
  "[agent-chat] The public session's part did not load: serve it beside the widget's script, and allow it in the page's CSP (script-src).";

/**
 * The token source of a page with no session endpoint (wire contract §2b): the service mints an
 * anonymous session itself for a public integration, after a proof of work. All of it is in a
 * module loaded with the first session (public-session.ts), so pages with a session endpoint
 * never download it.
 */
export function publicTokenSource(options: PublicSourceOptions): TokenSource {
  const routes = `${options.baseUrl.replace(/\/+$/, '')}${publicBase(options.projectId, options.integrationId)}`;
  const fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const warnings = new Set<string>();
  return async (signal) => {
    let module: Awaited<ReturnType<typeof loadPublicSession>>;
    try {
      module = await loadPublicSession();
    } catch (error) {
      // A file of its own beside the script: the site owner reads once what to check (decision 727).
      if (!warnings.has(LOAD_FAILED)) console.warn(LOAD_FAILED, error);
      warnings.add(LOAD_FAILED);
      throw new SessionError('session_failed', LOAD_FAILED, {
        cause: new NetworkError(String(error), { cause: error }),
      });
    }
    const session = await module.publicSession({ ...options, routes, fetch, signal, warnings, kit: KIT });
    // Never an owner (§2b), whether or not the service lets the page read its header: `-`, as
    // the header spells it, and never '' (a site that names no owner) (decision 540).
    return { ...session, ownerKey: NO_OWNER };
  };
}
