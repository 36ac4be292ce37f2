import { describe, expect, it } from 'vitest';
import { MIGRATIONS, OLDEST_COMPATIBLE_SCHEMA } from '../../../../service/storage/migrations.js';
import { pgliteClient } from '../../../../service/storage/pglite.js';
import { SchemaTooNewError, migrate, openSqlStores } from '../../../../service/storage/sql/index.js';

/**
 * What a migration does that the builds before it cannot live with: their queries name the
 * column or table it drops or renames, their inserts leave out a column it makes required.
 */
const BREAKS_OLDER_BUILDS = [
  /\bDROP\s+(TABLE|COLUMN)\b/i,
  /\bRENAME\b/i,
  /\bALTER\s+COLUMN\b/i,
  /\bADD\s+COLUMN\s+\w+\s+[\w ()]+?\bNOT NULL\b(?![^,;]*\bDEFAULT\b)/i,
];

describe('schema versions across releases (decision 732)', () => {
  it('every migration since OLDEST_COMPATIBLE_SCHEMA leaves the schema fit for the builds before it', () => {
    const breaking = MIGRATIONS.map((sql, index) => ({ version: index + 1, sql }))
      .filter(({ version }) => version > OLDEST_COMPATIBLE_SCHEMA)
      .flatMap(({ version, sql }) => {
        // A view may be rebuilt with more columns: the builds before it read the ones they know.
        const views = [...sql.matchAll(/DROP MATERIALIZED VIEW (\w+)/g)].map((m) => m[1]);
        const unbuilt = views.filter((view) => !sql.includes(`CREATE MATERIALIZED VIEW ${view}`));
        const hits = BREAKS_OLDER_BUILDS.filter((rule) => rule.test(sql)).map(String);
        return [...hits, ...unbuilt.map((view) => `view ${view} dropped`)].map((hit) => `${version}: ${hit}`);
      });
    expect(breaking).toEqual([]);
    // The rule's own canary: the 4th migration renamed a column, and is where the range starts.
    expect(BREAKS_OLDER_BUILDS.some((rule) => rule.test(MIGRATIONS[OLDEST_COMPATIBLE_SCHEMA - 1]))).toBe(
      true,
    );
  });

  it('a build finds its schema migrated by a newer release that keeps it fit: it starts, says so, and migrates nothing', async () => {
    const db = await pgliteClient();
    await migrate(db);
    // The newer release: one migration more, fit for builds since the same version as this one's.
    await db.query('CREATE TABLE from_a_newer_release (id text PRIMARY KEY)');
    await db.query('INSERT INTO schema_migrations VALUES ($1, 0, $2)', [
      MIGRATIONS.length + 1,
      OLDEST_COMPATIBLE_SCHEMA,
    ]);
    const said: [number, number][] = [];
    const stores = await openSqlStores(db, {
      newerSchema: (database, build) => said.push([database, build]),
    });
    try {
      expect(said).toEqual([[MIGRATIONS.length + 1, MIGRATIONS.length]]);
      const { rows } = await db.query('SELECT count(*)::int AS n, max(version) AS v FROM schema_migrations');
      expect(rows[0]).toEqual({ n: MIGRATIONS.length + 1, v: MIGRATIONS.length + 1 });
      expect(await stores.conversations.listThreads('proj_any', 'owner', { limit: 1 })).toEqual([]);
    } finally {
      await stores.close();
    }
  });

  it('a build refuses a schema a newer release made unfit for it, names both versions, and writes nothing', async () => {
    const db = await pgliteClient();
    try {
      await migrate(db);
      await db.query('INSERT INTO schema_migrations VALUES ($1, 0, $1)', [MIGRATIONS.length + 2]);
      const error = await openSqlStores(db).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(SchemaTooNewError);
      expect(String(error)).toContain(
        `schema is at version ${MIGRATIONS.length + 2}, migrated by a newer release that builds before schema ${MIGRATIONS.length + 2} may not run on; this build's is ${MIGRATIONS.length}`,
      );
      const { rows } = await db.query('SELECT count(*)::int AS n FROM schema_migrations');
      expect(rows[0].n).toBe(MIGRATIONS.length + 1);
    } finally {
      await db.close();
    }
  });

  it('this build records, with each migration it runs, the oldest schema it keeps fit', async () => {
    const db = await pgliteClient();
    try {
      // An empty schema, so that every migration runs here (the embedded store starts migrated).
      await db.query('CREATE SCHEMA fresh');
      await db.query('SET search_path TO fresh');
      expect(await migrate(db)).toBe(MIGRATIONS.length);
      const { rows } = await db.query('SELECT DISTINCT oldest_compatible FROM schema_migrations');
      expect(rows).toEqual([{ oldest_compatible: OLDEST_COMPATIBLE_SCHEMA }]);
    } finally {
      await db.close();
    }
  });
});
