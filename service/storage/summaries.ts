import type { ActivityCounts, ActivitySummary } from './console-types.js';
import type { ActivityRow } from './types.js';

const zero = (): ActivityCounts => ({ sessions: 0, threads: 0, messages: 0, upvotes: 0, downvotes: 0, promptTokens: 0, completionTokens: 0 });

/** Token usage where the rollup carries it (model usage); 0 where it does not. */
const tokens = (row: ActivityRow) => row as ActivityRow & { promptTokens?: number; completionTokens?: number };

/**
 * The in-memory twin of the SQL summary (grouping sets over the rollup), so both stores
 * answer alike: sessions counted once per period, a session's mint row belonging to the
 * integrations it chatted through.
 */
export function summarizeActivity(all: ActivityRow[], integrationId?: string): ActivitySummary {
  let rows = all;
  if (integrationId) {
    const sessions = new Set(rows.filter((r) => r.integrationId === integrationId).map((r) => r.sessionToken));
    rows = rows.filter((r) => r.integrationId === integrationId || (r.integrationId === '' && sessions.has(r.sessionToken)));
  }
  const group = () => ({ counts: zero(), minted: new Set<string>(), seen: new Set<string>() });
  const days = new Map<number, ReturnType<typeof group>>();
  const integrations = new Map<string, ReturnType<typeof group>>();
  const total = group();
  const owners = new Set<string>();
  for (const r of rows) {
    const targets = [total, days.get(r.day) ?? days.set(r.day, group()).get(r.day)!];
    if (r.integrationId !== '') targets.push(integrations.get(r.integrationId) ?? integrations.set(r.integrationId, group()).get(r.integrationId)!);
    for (const g of targets) {
      g.counts.threads += r.threads;
      g.counts.messages += r.messages;
      g.counts.upvotes += r.upvotes;
      g.counts.downvotes += r.downvotes;
      g.counts.promptTokens += tokens(r).promptTokens ?? 0;
      g.counts.completionTokens += tokens(r).completionTokens ?? 0;
      if (r.sessions > 0) g.minted.add(r.sessionToken);
      g.seen.add(r.sessionToken);
    }
    if (r.owner !== null) owners.add(r.owner);
  }
  return {
    days: [...days].sort(([a], [b]) => a - b).map(([day, g]) => ({ day, ...g.counts, sessions: g.minted.size })),
    totals: { ...total.counts, sessions: total.minted.size, uniqueOwners: owners.size },
    byIntegration: [...integrations].sort(([a], [b]) => (a < b ? -1 : 1)).map(([id, g]) => ({ integrationId: id, ...g.counts, sessions: g.seen.size })),
  };
}

const fold = (text: string) => text.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase();

/**
 * The memory store's stand-in for full-text search: every word of the query (quoted phrases
 * kept whole, `-word` excluded) appears in one of the texts, ignoring case and accents.
 */
export function textMatches(texts: string[], query: string): boolean {
  const haystack = fold(texts.join('\n'));
  const terms = [...query.matchAll(/(-?)(?:"([^"]+)"|(\S+))/g)].map((m) => ({ not: m[1] === '-', term: fold(m[2] ?? m[3]) }));
  return terms.every(({ not, term }) => haystack.includes(term) !== not);
}
