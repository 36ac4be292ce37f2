import type { ReactiveController, ReactiveControllerHost } from 'lit';
import { createUiStateStore, type UiState, type UiStateStore } from '../chat/ui-state-store.js';

export interface UiStateControllerOptions {
  /** Where this widget's state lives: project + integration (+ the element's id, if any). */
  scope: () => string;
  /** The state to persist, read at save time. */
  collect: () => UiState;
  /** Applies a state read from IndexedDB: all of it on connect, the shared parts when the tab comes back into view. */
  apply: (state: UiState, origin: 'hydrate' | 'visible') => void;
  /** Another tab wiped this scope (sign-out, owner change): wipe here too. */
  onWiped: () => void;
  debounceMs?: number;
}

/**
 * Hydrates UI state on connect without blocking the first paint and persists it (debounced)
 * after updates. Every write waits for hydration, so defaults rendered before IndexedDB answers
 * never overwrite what was stored.
 *
 * Tabs: a wipe (sign-out, owner change) is broadcast and followed at once by every tab; other
 * changes are picked up when a tab becomes visible again. Following every write live would let
 * two tabs with different panels write each other's state back and forth.
 */
export class UiStateController implements ReactiveController {
  private store?: UiStateStore;
  private hydration: Promise<void> = Promise.resolve();
  private timer?: ReturnType<typeof setTimeout>;
  private unwatch?: () => void;
  /** What IndexedDB holds as far as this tab knows; an unchanged state is not written again. */
  private stored = '';

  constructor(
    host: ReactiveControllerHost,
    private readonly options: UiStateControllerOptions,
  ) {
    host.addController(this);
  }

  /** Resolves once the stored state (if any) has been applied. */
  get hydrated(): Promise<void> {
    return this.hydration;
  }

  hostConnected(): void {
    const store = createUiStateStore(this.options.scope());
    this.store = store;
    this.hydration = this.read('hydrate');
    this.unwatch = store.watch(() => void this.followWipe());
    // Unload never calls disconnectedCallback; these are the moments a page can still write.
    addEventListener('pagehide', this.flushNow);
    document.addEventListener('visibilitychange', this.flushWhenHidden);
  }

  hostUpdated(): void {
    if (!this.store) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.flush(), this.options.debounceMs ?? 250);
  }

  hostDisconnected(): void {
    this.unwatch?.();
    removeEventListener('pagehide', this.flushNow);
    document.removeEventListener('visibilitychange', this.flushWhenHidden);
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private readonly flushNow = () => void this.flush();
  private readonly flushWhenHidden = () => {
    if (document.visibilityState === 'hidden') void this.flush();
    else void this.read('visible');
  };

  async flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.hydration;
    const state = this.options.collect();
    const serialized = JSON.stringify(state);
    // Also what keeps two tabs from echoing each other's writes back and forth.
    if (serialized === this.stored) return;
    this.stored = serialized;
    await this.store?.save(state);
  }

  /** Forgets the stored state now; pending writes are dropped. */
  async wipe(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.hydration;
    this.stored = '';
    await this.store?.clear();
  }

  private async read(origin: 'hydrate' | 'visible'): Promise<void> {
    const state = await this.store?.load();
    if (!state) return;
    this.options.apply(state, origin);
    // What was just hydrated needs no write back; a tab coming into view may differ and will.
    if (origin === 'hydrate') this.stored = JSON.stringify(this.options.collect());
  }

  private async followWipe(): Promise<void> {
    if (await this.store?.load()) return;
    this.stored = '';
    this.options.onWiped();
  }
}
