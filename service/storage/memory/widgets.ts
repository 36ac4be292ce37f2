import type { KeepWidgetResult, WidgetReleaseFiles, WidgetReleaseMeta, WidgetStore } from '../types.js';

interface Kept {
  meta: WidgetReleaseMeta;
  sri: string;
  files: Map<string, { body: Uint8Array; gzip?: Uint8Array }>;
}

/** The hashes as a set: jsonb's equality, which the SQL store compares by, ignores their order. */
const hashes = (sri: Record<string, string>) =>
  JSON.stringify(Object.entries(sri).sort(([a], [b]) => (a < b ? -1 : 1)));

const lastUse = (m: WidgetReleaseMeta) => Math.max(m.storedAt, m.loadedAt ?? 0);

/** Kept releases in this process's memory, mirroring sql/widgets.ts. */
export class MemoryWidgetStore implements WidgetStore {
  private readonly releases = new Map<string, Kept>();

  async keepWidgetRelease(release: WidgetReleaseFiles, at: number): Promise<KeepWidgetResult> {
    const sri = hashes(release.sri);
    const before = this.releases.get(release.version);
    if (before?.sri === sri) return 'kept';
    const bytes = release.files.reduce((n, f) => n + f.body.byteLength + (f.gzip?.byteLength ?? 0), 0);
    this.releases.set(release.version, {
      meta: { version: release.version, bytes, storedAt: at, loadedAt: null },
      sri,
      files: new Map(release.files.map((f) => [f.name, { body: f.body, ...(f.gzip && { gzip: f.gzip }) }])),
    });
    return before ? 'replaced' : 'stored';
  }

  async holdsWidgetRelease(version: string, sri: Record<string, string>) {
    return this.releases.get(version)?.sri === hashes(sri);
  }

  async widgetFile(version: string, name: string) {
    return this.releases.get(version)?.files.get(name);
  }

  async noteWidgetLoaded(version: string, at: number) {
    const kept = this.releases.get(version);
    if (kept) kept.meta.loadedAt = Math.max(kept.meta.loadedAt ?? 0, at);
  }

  private sorted(): WidgetReleaseMeta[] {
    return [...this.releases.values()]
      .map((k) => ({ ...k.meta }))
      .sort((a, b) => lastUse(b) - lastUse(a) || (a.version < b.version ? -1 : 1));
  }

  async listWidgetReleases() {
    return this.sorted();
  }

  async purgeWidgetReleases(keep: readonly string[], before: number, max: number) {
    const sorted = this.sorted();
    let purged = 0;
    sorted.forEach((m, i) => {
      if (keep.includes(m.version) || (lastUse(m) >= before && i < max)) return;
      this.releases.delete(m.version);
      purged++;
    });
    return purged;
  }
}
