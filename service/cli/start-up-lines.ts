import { networkInterfaces } from 'node:os';
import type { Stores } from '../storage/types.js';

/** What the program says once it listens, beyond its first two lines: every interface, and where the console is and who can sign in. */

/**
 * The console's cookie is Secure only when the service can tell the browser is on https: a TLS
 * proxy that sends no X-Forwarded-Proto leaves it plain unless --public-url says https.
 */
const INSECURE_COOKIE =
  'console: its sign-in cookie is marked Secure only for requests that arrive over https or with X-Forwarded-Proto: https. Behind a TLS proxy that sends neither, set --public-url https://… (AGENT_CHAT_PUBLIC_URL).';

/**
 * A wildcard host (0.0.0.0, ::) is no address to open: the lines above give the loopback one, for
 * a person on this machine, and this line says it listens on every interface, with the machine's
 * own addresses for the others (decision 568). Link-local IPv6 ones are left out (they need a zone).
 */
export function everyInterface(host: string, url: string): string | undefined {
  if (host !== '0.0.0.0' && host !== '::') return undefined;
  const { port } = new URL(url);
  const addresses = Object.values(networkInterfaces())
    .flat()
    .filter((a) => a && !a.internal && (host === '::' || a.family === 'IPv4') && !a.scopeid)
    .map((a) => `http://${a!.family === 'IPv6' ? `[${a!.address}]` : a!.address}:${port}`);
  return `listens on every interface (${host})${addresses.length ? `: also ${addresses.join(', ')}` : ''}`;
}

/** Who can sign in to the console: nobody, only viewers (who change nothing; decision 718), or an admin. */
export async function signInState(storage: Stores): Promise<'none' | 'viewers' | 'admin'> {
  if (!(await storage.accounts.hasAdmins())) return 'none';
  const accounts = await storage.accounts.listAdmins();
  return accounts.some((a) => a.role === 'admin') ? 'admin' : 'viewers';
}

/**
 * Where the console is (behind a proxy, at the public URL, and on this machine; decision 574),
 * how to add its first admin while there is none or make a viewer one while only viewers are
 * left (decision 749), and (one write, so it arrives with that line) when its cookie cannot be Secure.
 */
export function announceConsole(
  url: string,
  publicUrl: string | undefined,
  signIn: 'none' | 'viewers' | 'admin',
  dataDir: string | null,
) {
  // The embedded store takes one process: `admin add` or `admin role` beside this one would be refused.
  const command =
    signIn === 'none' ? 'agent-chat-service admin add NAME' : 'agent-chat-service admin role NAME admin';
  const stdin = signIn === 'none' ? ', the password on stdin' : '';
  const state = signIn === 'none' ? 'no admin yet' : 'no admin, only viewers';
  const first =
    signIn === 'admin'
      ? ''
      : dataDir
        ? ` (${state}: stop this service, then run ${command} --data ${dataDir}${stdin}, and start it again)`
        : ` (${state}: run ${command} beside it, with DATABASE_URL${stdin})`;
  const caveat = publicUrl?.startsWith('https:') ? '' : `\n${INSECURE_COOKIE}`;
  const where = publicUrl
    ? `${publicUrl.replace(/\/*$/, '')}/console/ (on this machine: ${url}/console/)`
    : `${url}/console/`;
  console.log(`console: ${where}${first}${caveat}`);
}
