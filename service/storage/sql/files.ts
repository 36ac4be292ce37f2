import type { SqlClient } from '../sql-client.js';
import type { FileMeta, FileQuota, FileSettings, FileStore, PutFileResult, StoredFile } from '../types.js';
import { num } from './rows.js';

const META_COLUMNS =
  'id, project_id, integration_id, uploader, name, content_type, kind, size, created_at, thread_id';

const toMeta = (r: Record<string, unknown>): FileMeta => ({
  id: r.id as string,
  projectId: r.project_id as string,
  integrationId: r.integration_id as string,
  uploader: r.uploader as string,
  name: r.name as string,
  contentType: r.content_type as string,
  kind: r.kind as FileMeta['kind'],
  size: num(r.size),
  createdAt: num(r.created_at),
  threadId: (r.thread_id as string | null) ?? null,
});

/**
 * The uploader's quotas and the insert in one statement, under a lock per uploader: two uploads
 * of one visitor never both pass the last free place. The row inserted, it takes the lock of
 * the integration ($13) for the check that follows, saving that check a round trip.
 */
const PUT_FILE = `WITH mine AS (
     SELECT count(*)::int AS n, coalesce(sum(size), 0)::bigint AS bytes FROM files
     WHERE project_id = $2 AND uploader = $4 AND thread_id IS NULL)
   INSERT INTO files (id, project_id, integration_id, uploader, name, content_type, kind, size, bytes, created_at)
   SELECT $1, $2, $3, $4, $5, $6, $7, $8::int, $9, $10::bigint FROM mine
   WHERE mine.n < $11::int AND mine.bytes + $8::int <= $12::bigint
   RETURNING pg_advisory_xact_lock(hashtextextended($13, 0))`;

/** The integration's unused bytes, this transaction's new file included. */
const INTEGRATION_BYTES = `SELECT coalesce(sum(size), 0)::bigint AS bytes FROM files
   WHERE project_id = $1 AND integration_id = $2 AND thread_id IS NULL`;

/** The integration's bytes uploaded since a time, used or not, this transaction's new file included. */
const INTEGRATION_DAY_BYTES = `SELECT coalesce(sum(size), 0)::bigint AS bytes FROM files
   WHERE project_id = $1 AND integration_id = $2 AND created_at >= $3`;

/** Files as bytea rows; a thread's delete takes its files (ON DELETE CASCADE), a project's takes all of its own. */
export class SqlFileStore implements FileStore {
  constructor(private readonly db: SqlClient) {}

  /**
   * The file is written first, then the integration's bytes are checked under a lock per
   * integration held to the commit: each check sees every file stored before it, so visitors
   * uploading at once cannot pass the quota together; the lock waits only on a sum and a
   * commit, never on another upload's bytes being written. Locks are taken uploader first,
   * integration second, so two uploads never wait on each other.
   */
  async putFile(f: StoredFile, quota: FileQuota, publicDaySince?: number): Promise<PutFileResult> {
    return this.db.transaction(async (query) => {
      await query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [
        `files\n${f.projectId}\n${f.uploader}`,
      ]);
      const { rowCount } = await query(PUT_FILE, [
        f.id,
        f.projectId,
        f.integrationId,
        f.uploader,
        f.name,
        f.contentType,
        f.kind,
        f.size,
        f.bytes,
        f.createdAt,
        quota.uploaderFiles,
        quota.uploaderBytes,
        `files of integration\n${f.projectId}\n${f.integrationId}`,
      ]);
      if (rowCount === 0) return 'uploader_quota';
      const { rows } = await query(INTEGRATION_BYTES, [f.projectId, f.integrationId]);
      let refused: PutFileResult | null =
        num(rows[0].bytes) > quota.integrationBytes ? 'integration_quota' : null;
      if (!refused && publicDaySince !== undefined) {
        const day = await query(INTEGRATION_DAY_BYTES, [f.projectId, f.integrationId, publicDaySince]);
        if (num(day.rows[0].bytes) > quota.publicDayBytes) refused = 'public_day_quota';
      }
      if (!refused) return 'stored';
      await query('DELETE FROM files WHERE id = $1', [f.id]);
      return refused;
    });
  }

  async getFile(id: string) {
    const { rows } = await this.db.query(`SELECT ${META_COLUMNS}, bytes FROM files WHERE id = $1`, [id]);
    const row = rows[0];
    return row && { ...toMeta(row), bytes: new Uint8Array(row.bytes as Uint8Array) };
  }

  async describeFiles(ids: readonly string[]) {
    if (!ids.length) return [];
    const { rows } = await this.db.query(`SELECT ${META_COLUMNS} FROM files WHERE id = ANY($1::text[])`, [
      [...ids],
    ]);
    return rows.map(toMeta);
  }

  async purgeUnusedFiles(before: number) {
    const { rowCount } = await this.db.query(
      'DELETE FROM files WHERE thread_id IS NULL AND created_at < $1',
      [before],
    );
    return rowCount;
  }

  async fileSettings(projectId: string, integrationId: string) {
    const { rows } = await this.db.query(
      'SELECT settings FROM file_settings WHERE project_id = $1 AND integration_id = $2',
      [projectId, integrationId],
    );
    return rows[0] ? (rows[0].settings as FileSettings) : undefined;
  }

  async putFileSettings(projectId: string, integrationId: string, settings: FileSettings) {
    const { rowCount } = await this.db.query(
      `INSERT INTO file_settings (project_id, integration_id, settings)
       SELECT $1, $2, $3::jsonb WHERE EXISTS (SELECT 1 FROM integrations WHERE project_id = $1 AND id = $2)
       ON CONFLICT (project_id, integration_id) DO UPDATE SET settings = excluded.settings`,
      [projectId, integrationId, JSON.stringify(settings)],
    );
    return rowCount > 0;
  }
}
