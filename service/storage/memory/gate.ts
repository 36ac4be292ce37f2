import type { DailyCounts, GateStore } from '../types.js';

/** Spent challenges and daily budgets in this process's memory (a fleet of one). */
export class MemoryGateStore implements GateStore {
  private readonly challenges = new Map<string, number>();
  /** `project\nintegration\nday` → what it spent. */
  private readonly budgets = new Map<string, DailyCounts & { day: number }>();

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

  async purgeGate(now: number, day: number) {
    let removed = 0;
    for (const [challenge, expiresAt] of this.challenges)
      if (expiresAt <= now && this.challenges.delete(challenge)) removed++;
    for (const [key, use] of this.budgets) if (use.day < day && this.budgets.delete(key)) removed++;
    return removed;
  }
}
