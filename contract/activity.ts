/** The activity the query API reports (docs/protocol.md §6, version 3, and §8), and how it adds up. */

/** What happened in a day, an integration or a whole period. */
export interface ActivityCounts {
  /** Sessions minted, each counted once in a period wherever it shows up. */
  sessions: number;
  threads: number;
  messages: number;
  /** Reactions (§8): the latest of each voter on an answer. */
  upvotes: number;
  downvotes: number;
  /** Model tokens the answers took (version 3); 0 where the agent reports none. */
  prompt_tokens: number;
  completion_tokens: number;
}

/** The counts in the order reports and spreadsheets list them. */
export const ACTIVITY_COUNTS = [
  'sessions',
  'threads',
  'messages',
  'upvotes',
  'downvotes',
  'prompt_tokens',
  'completion_tokens',
] as const satisfies readonly (keyof ActivityCounts)[];

export const noActivity = (): ActivityCounts => ({
  sessions: 0,
  threads: 0,
  messages: 0,
  upvotes: 0,
  downvotes: 0,
  prompt_tokens: 0,
  completion_tokens: 0,
});

/**
 * Adds every count of `more` to `into` and returns `into`: the one place activity is summed,
 * whether from the rollup's rows, the day-level summaries or the days of a period.
 */
export function sumActivity(into: ActivityCounts, more: Readonly<ActivityCounts>): ActivityCounts {
  for (const key of ACTIVITY_COUNTS) into[key] += more[key];
  return into;
}

/**
 * What the console counts (contract/console.ts): the query API's counts and the answers that
 * failed, which only the console reports (decision 497: the query API stays the contract's).
 */
export interface ConsoleCounts extends ActivityCounts {
  /** Answers that ended failed (stored `error`) by the instance generating them. */
  failed_answers: number;
}

/** The console's counts in the order its spreadsheet lists them: the query API's, then its own. */
export const CONSOLE_COUNTS = [
  ...ACTIVITY_COUNTS,
  'failed_answers',
] as const satisfies readonly (keyof ConsoleCounts)[];

export const noConsoleCounts = (): ConsoleCounts => ({ ...noActivity(), failed_answers: 0 });

/** `sumActivity` for the console's counts: the same sums, and the failed answers. */
export function sumConsoleCounts(into: ConsoleCounts, more: Readonly<ConsoleCounts>): ConsoleCounts {
  sumActivity(into, more);
  into.failed_answers += more.failed_answers;
  return into;
}

/** One day of the period (UTC, `YYYY-MM-DD`); every day is listed, zeros included. */
export type DayActivity = ActivityCounts & { date: string };

/** One integration's share: its sessions, threads, messages and tokens (reactions are counted per day only). */
export type IntegrationActivity = Pick<
  ActivityCounts,
  'sessions' | 'threads' | 'messages' | 'prompt_tokens' | 'completion_tokens'
> & { integration_id: string };

/** How old the figures may be: when the rollup was built (null: not yet), and the bound. */
export interface ActivityFreshness {
  as_of: string | null;
  max_staleness_seconds: number;
}

/** `GET {base}/query/v1/projects/{project_id}/activity/`: the answer. */
export interface ActivityReport {
  /** Inclusive UTC days. */
  period: { start: string; end: string };
  totals: ActivityCounts & { unique_owners: number };
  by_integration: IntegrationActivity[];
  by_day: DayActivity[];
  freshness: ActivityFreshness;
}
