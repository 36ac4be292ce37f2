import {
  REFUSALS_KEPT_MS,
  REFUSALS_PER_INTEGRATION,
  type DailyCounts,
  type GateStore,
  type RefusalNote,
  type StoredRefusal,
} from '../types.js';

/** Spent challenges and daily budgets in this process's memory (a fleet of one). */
export class MemoryGateStore implements GateStore {
  private readonly challenges = new Map<string, number>();
  /** `project\nintegration\nday` → what it spent. */
  private readonly budgets = new Map<string, DailyCounts & { day: number }>();
  /** `project\nintegration` → its refused origins. */
  private readonly refused = new Map<string, Map<string, StoredRefusal>>();

  async spendChallenge(challenge: string, expiresAt: number) {
    if (this.challenges.has(challenge)) return false;
    this.challenges.set(challenge, expiresAt);
    return true;
  }

  async spendBudget(
    projectId: string,
    integrationId: string,
    day: number,
    kind: keyof DailyCounts,
    limit: number,
  ) {
    const key = `${projectId}\n${integrationId}\n${day}`;
    const use = this.budgets.get(key) ?? { sessions: 0, answers: 0, day };
    if (use[kind] >= limit) return false;
    use[kind] += 1;
    this.budgets.set(key, use);
    return true;
  }

  async refundBudget(projectId: string, integrationId: string, day: number, kind: keyof DailyCounts) {
    const use = this.budgets.get(`${projectId}\n${integrationId}\n${day}`);
    if (use && use[kind] > 0) use[kind] -= 1;
  }

  async budgetUse(projectId: string, day: number) {
    const found = new Map<string, DailyCounts>();
    for (const [key, { sessions, answers }] of this.budgets) {
      const [project, integration, d] = key.split('\n');
      if (project === projectId && Number(d) === day) found.set(integration, { sessions, answers });
    }
    return found;
  }

  async noteRefusals({ projectId, integrationId, origin, count, at }: RefusalNote) {
    const key = `${projectId}\n${integrationId}`;
    const origins = this.refused.get(key) ?? new Map<string, StoredRefusal>();
    this.refused.set(key, origins);
    const before = origins.get(origin);
    origins.set(origin, {
      origin,
      count: (before?.count ?? 0) + count,
      last: Math.max(before?.last ?? at, at),
    });
    const newest = latestFirst([...origins.values()]).slice(0, REFUSALS_PER_INTEGRATION);
    for (const name of origins.keys()) if (!newest.some((r) => r.origin === name)) origins.delete(name);
  }

  async refusals(projectId: string) {
    const found = new Map<string, StoredRefusal[]>();
    for (const [key, origins] of this.refused) {
      const [project, integration] = key.split('\n');
      if (project === projectId && origins.size)
        found.set(
          integration,
          latestFirst([...origins.values()]).map((r) => ({ ...r })),
        );
    }
    return found;
  }

  async purgeGate(now: number, day: number) {
    let removed = 0;
    for (const origins of this.refused.values())
      for (const [origin, { last }] of origins)
        if (last < now - REFUSALS_KEPT_MS && origins.delete(origin)) removed++;
    for (const [challenge, expiresAt] of this.challenges)
      if (expiresAt <= now && this.challenges.delete(challenge)) removed++;
    for (const [key, use] of this.budgets) if (use.day < day && this.budgets.delete(key)) removed++;
    return removed;
  }
}

/** The latest refusal first; at the same time, by origin, as SQL orders them. */
const latestFirst = (refusals: StoredRefusal[]) =>
  refusals.sort((a, b) => b.last - a.last || (a.origin < b.origin ? -1 : a.origin > b.origin ? 1 : 0));
