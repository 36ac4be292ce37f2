import type { Clock } from '../kernel/clock.js';
import type { Log } from '../kernel/log.js';
import type { WidgetStore } from '../storage/types.js';

/** A release no page loaded for this long is dropped (its pages went to another tag, or away). */
const WIDGET_RELEASE_RETENTION_MS = 180 * 86_400_000;
/** At most this many releases are kept, the last loaded first: a release is 0.9 MB with its gzip copies. */
const MAX_WIDGET_RELEASES = 20;
/** A page's load is written at most this often per release and instance: the console says "when", to the hour. */
const NOTE_EVERY_MS = 3_600_000;
/** Other releases' files an instance holds in memory: a pinned page loads a script and a few parts. */
const CACHED_FILES = 32;

/**
 * The widget release the service was built with: served at /widget/{version}/ (§12) and pinned
 * by the console's install snippets. The host reads the files (the Node face from disk).
 */
export interface WidgetRelease {
  version: string;
  /** Each file's SRI hash (the widget's dist/sri.json): also the list of the files served. */
  sri: Record<string, string>;
  /** A file by its name in `sri`, or `sri.json`; `gzip` when the host keeps it compressed too. */
  file(name: string): Promise<{ body: Uint8Array; gzip?: Uint8Array } | undefined>;
}

type WidgetFile = { body: Uint8Array; gzip?: Uint8Array };

/**
 * The widget releases one instance serves (decision 741): its own, from the build, and every
 * release the fleet served before, from the store, so that a page pinned to an older release
 * (or, during a rolling upgrade, to a newer one) keeps loading the same bytes its integrity
 * hashes name. The instance's own release is kept in the store as its duties start, and
 * before its first request.
 */
export class WidgetReleases {
  private kept: Promise<void> | null = null;
  private readonly noted = new Map<string, number>();
  private readonly cache = new Map<string, WidgetFile>();

  constructor(
    private readonly own: WidgetRelease | null,
    private readonly store: WidgetStore,
    private readonly clock: Clock,
    private readonly log: Log,
  ) {}

  /**
   * Stores this build's release unless the store holds it with the same hashes. Never fails
   * the request that waits on it: a failure is logged, and the next maintenance tries again.
   */
  keep(): Promise<void> {
    const release = this.own;
    if (!release) return Promise.resolve();
    return (this.kept ??= this.storeOwn(release).then(
      (result) => this.logKept(result),
      (error) => {
        this.kept = null;
        this.log({ level: 'warn', msg: 'widget_release_not_kept', error: String(error) });
      },
    ));
  }

  /**
   * Reads the release's files (0.9 MB) only when the store lacks them: every start of an
   * instance whose release the fleet keeps already asks, and reads nothing (decision 763).
   */
  private async storeOwn(release: WidgetRelease) {
    if (await this.store.holdsWidgetRelease(release.version, release.sri)) return 'kept';
    const files = await Promise.all(
      [...Object.keys(release.sri), 'sri.json'].map(async (name) => {
        const file = await release.file(name);
        if (!file) throw new Error(`the release ${release.version} has no file ${name}`);
        return { name, ...file };
      }),
    );
    return this.store.keepWidgetRelease(
      { version: release.version, sri: release.sri, files },
      this.clock.now(),
    );
  }

  private logKept(result: string) {
    if (result !== 'replaced') return;
    this.log({
      level: 'warn',
      msg: 'widget_release_replaced',
      version: this.own!.version,
      hint: 'The store held other files under this version: pages pinned to their integrity hashes fail to load them now. Give each build of the widget its own version.',
    });
  }

  /** A file of `version` (this build's, else a kept release's), noting the load; undefined: none. */
  async file(version: string, name: string): Promise<WidgetFile | undefined> {
    const own = this.own && version === this.own.version;
    if (own && name !== 'sri.json' && !Object.hasOwn(this.own!.sri, name)) return undefined;
    // Its own file gone from disk (a package upgraded in place under it): the store's copy.
    const file = (own && (await this.own!.file(name))) || (await this.stored(version, name));
    if (file) await this.note(version);
    return file;
  }

  private async stored(version: string, name: string) {
    const key = `${version}\n${name}`;
    const cached = this.cache.get(key);
    if (cached) return cached;
    const file = await this.store.widgetFile(version, name);
    if (!file) return undefined;
    // Bytes under a version change only when a development build replaces them. The oldest
    // cached goes first.
    if (this.cache.size >= CACHED_FILES) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(key, file);
    return file;
  }

  /** A failed note loses one hour's mark at most: the file is served all the same. */
  private async note(version: string) {
    const now = this.clock.now();
    if (now - (this.noted.get(version) ?? -Infinity) < NOTE_EVERY_MS) return;
    this.noted.set(version, now);
    await this.store.noteWidgetLoaded(version, now).catch(() => this.noted.delete(version));
  }

  /** Keeps this build's release if it is not yet, then drops those no page loaded for long, or beyond the bound. */
  async purge(): Promise<number> {
    if (!this.own) return 0;
    await this.keep();
    const now = this.clock.now();
    return this.store.purgeWidgetReleases(
      [this.own.version],
      now - WIDGET_RELEASE_RETENTION_MS,
      MAX_WIDGET_RELEASES,
    );
  }
}
