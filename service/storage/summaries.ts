import { type ConsoleCounts, noConsoleCounts as zero, sumConsoleCounts } from '../../contract/activity.js';
import type { ActivitySummary } from './console-types.js';
import type { ActivityRow } from './types.js';

/**
 * The in-memory twin of the SQL day-level summaries, so both stores answer alike: a session
 * counts on the day it was minted, for every integration it chatted through (`history`: all the
 * rows there are, not only the period's); unique owners are those active in the period (through
 * the integration, when one is chosen).
 */
export function summarizeActivity(
  period: ActivityRow[],
  integrationId?: string,
  history: ActivityRow[] = period,
): ActivitySummary {
  const via = new Map<string, Set<string>>();
  for (const r of history)
    if (r.integrationId !== '')
      (via.get(r.sessionToken) ?? via.set(r.sessionToken, new Set()).get(r.sessionToken)!).add(
        r.integrationId,
      );
  const rows = integrationId
    ? period.filter(
        (r) =>
          r.integrationId === integrationId ||
          (r.integrationId === '' && r.sessions > 0 && via.get(r.sessionToken)?.has(integrationId)),
      )
    : period;
  const days = new Map<number, ConsoleCounts>();
  const integrations = new Map<string, ConsoleCounts>();
  const total = zero();
  const owners = new Set<string>();
  for (const r of rows) {
    const targets = [total, days.get(r.day) ?? days.set(r.day, zero()).get(r.day)!];
    if (r.integrationId !== '')
      targets.push(
        integrations.get(r.integrationId) ?? integrations.set(r.integrationId, zero()).get(r.integrationId)!,
      );
    sumConsoleCounts(targets[0], r);
    sumConsoleCounts(targets[1], r);
    // An integration's sessions are counted below, from the sessions minted in the period.
    if (targets[2]) sumConsoleCounts(targets[2], { ...r, sessions: 0 });
    if (r.owner !== null) owners.add(r.owner);
  }
  // Per integration, sessions minted in the period that chatted through it.
  for (const r of period) {
    if (r.sessions === 0) continue;
    for (const id of via.get(r.sessionToken) ?? [])
      if (integrations.has(id)) integrations.get(id)!.sessions += r.sessions;
  }
  if (integrationId) {
    owners.clear();
    for (const r of period) if (r.owner !== null && r.integrationId === integrationId) owners.add(r.owner);
  }
  return {
    days: [...days].sort(([a], [b]) => a - b).map(([day, c]) => ({ day, ...c })),
    totals: { ...total, uniqueOwners: owners.size },
    byIntegration: [...integrations]
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([id, c]) => ({ integrationId: id, ...c })),
  };
}

const fold = (text: string) => text.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase();

/**
 * The memory store's stand-in for full-text search: every word of the query (quoted phrases
 * kept whole, `-word` excluded) appears in one of the texts, ignoring case and accents.
 */
export function textMatches(texts: string[], query: string): boolean {
  const haystack = fold(texts.join('\n'));
  const terms = [...query.matchAll(/(-?)(?:"([^"]+)"|(\S+))/g)].map((m) => ({
    not: m[1] === '-',
    term: fold(m[2] ?? m[3]),
  }));
  return terms.every(({ not, term }) => haystack.includes(term) !== not);
}
