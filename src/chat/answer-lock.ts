/**
 * The Web Lock a tab holds while it streams an answer of a scope. Tabs that follow that answer
 * through the device wait for it, and get it when the answer ended (its end written first) or
 * when the streaming tab went away, whichever way: the browser releases a dead tab's locks.
 * Without Web Locks (a page not served over https or from localhost) nothing is held, nobody
 * waits, and `heldElsewhere` says no.
 */
export class AnswerLock {
  #release?: () => void;
  /** This tab's hold, from hold() until the browser freed the lock (letGo waits for a write first). */
  #mine?: Promise<void>;

  readonly #name: () => string;

  constructor(name: () => string) {
    this.#name = name;
  }

  get #locks(): LockManager | undefined {
    return typeof navigator === 'undefined' ? undefined : navigator.locks;
  }

  /** Whether the browser has Web Locks here (a secure context). */
  get available(): boolean {
    return this.#locks !== undefined;
  }

  /** Holds the lock from now until `letGo` (a second call while held does nothing). */
  hold(): void {
    const locks = this.#locks;
    if (this.#release || !locks) return;
    const held = new Promise<void>((resolve) => (this.#release = resolve));
    const mine: Promise<void> = locks
      .request(this.#name(), () => held)
      .catch(() => {})
      .then(() => {
        if (this.#mine === mine) this.#mine = undefined;
      });
    this.#mine = mine;
  }

  /** Lets go once `first` settled: what the followers must find (the answer's end) is written by then. */
  letGo(first: Promise<unknown>): void {
    const release = this.#release;
    this.#release = undefined;
    if (release) void first.finally(release);
  }

  /** Whether another tab (or widget) holds the lock now. */
  async heldElsewhere(): Promise<boolean> {
    const locks = this.#locks;
    if (!locks || this.#release) return false;
    const { held } = await locks.query();
    return Boolean(held?.some((lock) => lock.name === this.#name()));
  }

  /**
   * Runs `then` holding the lock, only if no other tab holds it now; not without Web Locks. While
   * this tab holds it (its answer, or the write of its end before it lets go) it runs once this
   * tab let go: an `online` heard in the moment after a request failed offline must not be lost.
   */
  ifFree(then: () => Promise<void>): void {
    if (this.#mine) return void this.#mine.then(() => this.ifFree(then));
    this.#locks
      ?.request(this.#name(), { ifAvailable: true }, (lock) => (lock ? then() : undefined))
      .catch(() => {});
  }

  /** Runs `then` once the lock is free, holding it until `then` settles. Returns false without Web Locks. */
  whenFree(then: () => Promise<void>): boolean {
    const locks = this.#locks;
    if (!locks) return false;
    locks.request(this.#name(), then).catch(() => {});
    return true;
  }
}
