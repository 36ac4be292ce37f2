import { rollUp } from '../rollup.js';
import { summarizeActivity } from '../summaries.js';
import type { ActivityEvent, ActivityStore } from '../types.js';
import type { MemoryState } from './state.js';

/** Events in memory; the rollup is computed live from them and the reactions, so it is always fresh. */
export class MemoryActivityStore implements ActivityStore {
  constructor(private readonly state: MemoryState) {}

  async recordActivity(event: ActivityEvent) {
    this.state.events.push({ ...event });
  }

  async activity(projectId: string, fromDay: number, toDay: number) {
    return rollUp(this.state.events, this.state.feedback.values(), projectId, fromDay, toDay);
  }

  async activitySummary(projectId: string, fromDay: number, toDay: number, integrationId?: string) {
    return summarizeActivity(
      await this.activity(projectId, fromDay, toDay),
      integrationId,
      await this.activity(projectId, Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER),
    );
  }

  async refreshActivity() {}

  async refreshActivityOnce() {
    return false;
  }

  async activityAsOf(now: number) {
    return now;
  }

  async purgeEvents(before: number) {
    const kept = this.state.events.filter((e) => e.at >= before);
    const purged = this.state.events.length - kept.length;
    this.state.events = kept;
    return purged;
  }
}
