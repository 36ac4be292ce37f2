import type { SqlClient } from '../sql-client.js';
import type { KeepWidgetResult, WidgetReleaseFiles, WidgetReleaseMeta, WidgetStore } from '../types.js';
import { json, num, numOrNull } from './rows.js';

/** When a release was last of use: loaded by a page, or else stored. */
const LAST_USE = 'greatest(stored_at, coalesce(loaded_at, 0))';

/** Releases as rows of their hashes, their files as bytea rows that go with them (ON DELETE CASCADE). */
export class SqlWidgetStore implements WidgetStore {
  constructor(private readonly db: SqlClient) {}

  /** Under a lock per version: instances of one release starting together store it once. */
  async keepWidgetRelease(release: WidgetReleaseFiles, at: number): Promise<KeepWidgetResult> {
    return this.db.transaction(async (query) => {
      await query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`widget\n${release.version}`]);
      const { rows } = await query('SELECT sri = $2::jsonb AS same FROM widget_releases WHERE version = $1', [
        release.version,
        json(release.sri),
      ]);
      if (rows[0]?.same === true) return 'kept';
      await query('DELETE FROM widget_releases WHERE version = $1', [release.version]);
      const bytes = release.files.reduce((n, f) => n + f.body.byteLength + (f.gzip?.byteLength ?? 0), 0);
      await query(
        'INSERT INTO widget_releases (version, sri, bytes, stored_at) VALUES ($1, $2::jsonb, $3::bigint, $4::bigint)',
        [release.version, json(release.sri), bytes, at],
      );
      // One file a statement: a row is a few hundred KB at most, and no statement grows with the release.
      for (const f of release.files)
        await query('INSERT INTO widget_files (version, name, body, gzip) VALUES ($1, $2, $3, $4)', [
          release.version,
          f.name,
          f.body,
          f.gzip ?? null,
        ]);
      return rows.length ? 'replaced' : 'stored';
    });
  }

  async holdsWidgetRelease(version: string, sri: Record<string, string>) {
    const { rows } = await this.db.query(
      'SELECT 1 FROM widget_releases WHERE version = $1 AND sri = $2::jsonb',
      [version, json(sri)],
    );
    return rows.length > 0;
  }

  async widgetFile(version: string, name: string) {
    const { rows } = await this.db.query(
      'SELECT body, gzip FROM widget_files WHERE version = $1 AND name = $2',
      [version, name],
    );
    const row = rows[0];
    if (!row) return undefined;
    const gzip = row.gzip as Uint8Array | null;
    return { body: new Uint8Array(row.body as Uint8Array), ...(gzip && { gzip: new Uint8Array(gzip) }) };
  }

  async noteWidgetLoaded(version: string, at: number) {
    await this.db.query(
      'UPDATE widget_releases SET loaded_at = greatest(coalesce(loaded_at, 0), $2::bigint) WHERE version = $1',
      [version, at],
    );
  }

  async listWidgetReleases(): Promise<WidgetReleaseMeta[]> {
    const { rows } = await this.db.query(
      `SELECT version, bytes, stored_at, loaded_at FROM widget_releases ORDER BY ${LAST_USE} DESC, version`,
    );
    return rows.map((r) => ({
      version: r.version as string,
      bytes: num(r.bytes),
      storedAt: num(r.stored_at),
      loadedAt: numOrNull(r.loaded_at),
    }));
  }

  async purgeWidgetReleases(keep: readonly string[], before: number, max: number) {
    const { rowCount } = await this.db.query(
      `DELETE FROM widget_releases WHERE NOT (version = ANY($1::text[])) AND (
         ${LAST_USE} < $2::bigint
         OR version NOT IN (SELECT version FROM widget_releases ORDER BY ${LAST_USE} DESC, version LIMIT $3::int))`,
      [keep, before, max],
    );
    return rowCount;
  }
}
