import { HttpError } from './errors.js';

/** Stands for an id in a contract path; encodeURIComponent leaves it as it is. */
export const SLOT = '__id__';
const ID = '([^/]+)';

/** One path of a table and its handlers by method. */
export interface Route<H> {
  pattern: RegExp;
  methods: Record<string, H>;
}

/** A contract path, written with `SLOT` where an id goes, as a pattern capturing each id. */
export function pathPattern(path: string, { whole = true } = {}): RegExp {
  const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`^${path.split(SLOT).map(escape).join(ID)}${whole ? '$' : ''}`);
}

/**
 * A routing table from the contract's paths: `prefix` followed by each path, both written with
 * `SLOT` where an id goes (`agentBase(SLOT)`, `agentPaths.thread(SLOT)`), each matched whole.
 */
export function routeTable<H>(
  prefix: string,
  paths: [path: string, methods: Record<string, H>][],
): Route<H>[] {
  return paths.map(([path, methods]) => ({ pattern: pathPattern(prefix + path), methods }));
}

/**
 * The handler of a request's method on the route its path takes, with the ids the path holds
 * (still percent-encoded); undefined when no route takes the path; a 405 naming the allowed
 * methods when the route does not take the method.
 */
export function findRoute<H>(
  table: readonly Route<H>[],
  method: string,
  path: string,
): { handler: H; params: string[] } | undefined {
  for (const { pattern, methods } of table) {
    const match = pattern.exec(path);
    if (!match) continue;
    const handler = methods[method];
    if (!handler)
      throw new HttpError(405, 'method_not_allowed', `${method} is not allowed here.`, {
        Allow: Object.keys(methods).join(', '),
      });
    return { handler, params: match.slice(1) };
  }
  return undefined;
}
