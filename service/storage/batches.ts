/**
 * One statement for many calls: a call that comes while a statement is in flight waits, and the
 * calls that came meanwhile go together in the next one; alone, a call goes at once. Under load
 * the batches grow by themselves, so a burst costs a few round trips (and commits) instead of
 * one per call; nothing waits on a timer.
 *
 * `run` answers each item of a batch, in order. When a batch fails, each of its calls is tried
 * alone, so one bad call (or a deadlock with another instance's batch) fails only itself.
 */
export class Batches<T, R> {
  private waiting: { item: T; done: (result: R) => void; fail: (error: unknown) => void }[] = [];
  private running = false;

  constructor(
    private readonly run: (items: T[]) => Promise<R[]>,
    /** Most items in one statement (its arrays stay far below any parameter limit). */
    private readonly max = 500,
  ) {}

  add(item: T): Promise<R> {
    return new Promise((done, fail) => {
      this.waiting.push({ item, done, fail });
      if (!this.running) void this.drain();
    });
  }

  private async drain() {
    this.running = true;
    while (this.waiting.length) {
      const batch = this.waiting.splice(0, this.max);
      try {
        const results = await this.run(batch.map((b) => b.item));
        batch.forEach((b, i) => b.done(results[i]));
      } catch (error) {
        if (batch.length === 1) batch[0].fail(error);
        else
          await Promise.all(batch.map((b) => this.run([b.item]).then(([result]) => b.done(result), b.fail)));
      }
    }
    this.running = false;
  }
}
