import type { DrainReport } from './service.js';

/** What the program stops: `serve()`'s running service. */
export interface Stoppable {
  /** Answers generating on this instance now. */
  inFlight(): number;
  drain(deadlineMs: number): Promise<DrainReport>;
  close(): Promise<void>;
}

/** Where the signals come from (the process) and where the program's words and exit go. */
export interface SignalHost {
  on(signal: 'SIGTERM' | 'SIGINT', listener: () => void): unknown;
  say(line: string): void;
  exit(code: number): void;
}

/** Default seconds a drain waits: under Kubernetes' default grace period of 30 s, with 5 s to close. */
export const DEFAULT_DRAIN_SECONDS = 25;

const answers = (n: number) => `${n} answer${n === 1 ? '' : 's'}`;
/** How the answers a stop cuts end (decision 447). */
const endAsErrors = (n: number) =>
  n === 1 ? 'ends as an error, its text kept' : 'end as errors, their text kept';
const secondsOf = (ms: number) => `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;

/**
 * The program's stop (decision 456). The first SIGTERM or SIGINT drains: new questions go to
 * other instances, the answers in flight run to their end for at most `drainMs`, then the
 * service closes and whatever still generates ends as an error with its text kept (447). A
 * second signal, during the drain, closes at once. Each step is said in one line.
 */
export function stopOnSignals(running: Stoppable, drainMs: number, host: SignalHost): void {
  let draining = false;
  let closing: Promise<void> | null = null;
  const close = () =>
    (closing ??= running.close().then(
      () => host.exit(0),
      () => host.exit(1),
    ));
  const stop = (signal: string) => {
    if (closing) return;
    const count = running.inFlight();
    if (draining) {
      const left = count ? `; ${answers(count)} in flight ${endAsErrors(count)}` : '';
      host.say(`${signal} again: stopping now${left}.`);
      void close();
      return;
    }
    draining = true;
    const inFlight = count
      ? `${answers(count)} in flight, up to ${secondsOf(drainMs)}`
      : 'no answers in flight';
    host.say(
      `draining (${signal}): ${inFlight}; new questions go to other instances (503), /readyz fails; a second signal stops at once.`,
    );
    void running.drain(drainMs).then(({ left, ms }) => {
      if (closing) return;
      host.say(
        left
          ? `cut ${answers(left)} at the deadline (${secondsOf(drainMs)}): ${left === 1 ? 'it' : 'they'} ${endAsErrors(left)}.`
          : `drained in ${secondsOf(ms)}.`,
      );
      return close();
    }, close);
  };
  for (const signal of ['SIGTERM', 'SIGINT'] as const) host.on(signal, () => stop(signal));
}
