import type { ReactiveController, ReactiveControllerHost } from 'lit';
import { createUiStateStore, type UiState, type UiStateStore } from '../chat/ui-state-store.js';

export interface UiStateControllerOptions {
  /** Where this widget's state lives: project + integration (+ the element's id, if any). */
  scope: () => string;
  /** The state to persist, read at save time. */
  collect: () => UiState;
  /** Applies a state read from IndexedDB (on connect, or after another tab saved). */
  apply: (state: UiState, origin: 'hydrate' | 'other-tab') => void;
  /** Another tab wiped this scope (sign-out, owner change): wipe here too. */
  onWiped: () => void;
  debounceMs?: number;
}

/**
 * Hydrates UI state on connect without blocking the first paint, persists it (debounced)
 * after updates, and follows other tabs. Every write waits for hydration, so defaults
 * rendered before IndexedDB answers never overwrite what was stored.
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
    this.unwatch = store.watch(() => void this.read('other-tab'));
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

  private async read(origin: 'hydrate' | 'other-tab'): Promise<void> {
    const state = await this.store?.load();
    if (state) {
      this.options.apply(state, origin);
      this.stored = JSON.stringify(this.options.collect());
    } else if (origin === 'other-tab') {
      this.stored = '';
      this.options.onWiped();
    }
  }
}
