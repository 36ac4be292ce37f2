// npm run bench:uploads — files taken per second by putFile when many visitors upload at once,
// on PostgreSQL (scripts/with-postgres.sh gives DATABASE_URL): one integration that all of them
// share (its byte quota is checked under one lock per integration) and, for comparison, as many
// integrations as visitors (no upload waits on another's). Each upload is 64 KiB, far from any quota.
import { openStorage } from '../service/dist/index.js';

const url = process.env.DATABASE_URL;
if (!url) {
  console.log('bench:uploads: no DATABASE_URL (and no PostgreSQL binaries to make one); skipped');
  process.exit(0);
}
const VISITORS = 32;
const ROUNDS = 40;
const SIZE = 64 * 1024;
const PROJECT = `bench_${process.pid}`; // a run of its own on a database earlier runs used
const QUOTA = { uploaderFiles: 1_000, uploaderBytes: 1e12, integrationBytes: 1e12 };
const storage = await openStorage({ databaseUrl: url });
const integrations = Array.from({ length: VISITORS }, (_, i) => `int_${i}`);
await storage.directory.createProject({ id: PROJECT, name: 'P', ownerSecret: 's', createdAt: 0 });
for (const id of integrations)
  await storage.directory.createIntegration({
    projectId: PROJECT,
    id,
    name: id,
    allowedOrigins: [],
    createdAt: 0,
  });

let n = 0;
/** Every visitor uploads ROUNDS files one after another, all visitors at once; uploads per second. */
async function run(integrationOf) {
  const start = performance.now();
  await Promise.all(
    Array.from({ length: VISITORS }, async (_, v) => {
      for (let r = 0; r < ROUNDS; r++) {
        const result = await storage.files.putFile(
          {
            id: `f${++n}`,
            projectId: PROJECT,
            integrationId: integrationOf(v),
            uploader: `owner:v${v}`,
            name: 'a.bin',
            contentType: 'application/octet-stream',
            kind: 'text',
            size: SIZE,
            bytes: new Uint8Array(SIZE),
            createdAt: 0,
            threadId: null,
          },
          QUOTA,
        );
        if (result !== 'stored') throw new Error(result);
      }
    }),
  );
  await storage.files.purgeUnusedFiles(1);
  return Math.round((VISITORS * ROUNDS) / ((performance.now() - start) / 1000));
}

await run(() => 'int_0'); // warm up
for (let i = 0; i < 3; i++) {
  const one = await run(() => 'int_0');
  const many = await run((v) => integrations[v]);
  console.log(
    `${VISITORS} visitors: one integration ${one} uploads/s; one integration each ${many} uploads/s`,
  );
}
await storage.close();
