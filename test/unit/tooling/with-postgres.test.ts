import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * scripts/with-postgres.sh on a machine without PostgreSQL's server binaries, where installing
 * them fails: `apt-get` and `id` (root) are stand-ins on PATH that log what they were asked.
 */
function runWithoutPostgres(env: Record<string, string>) {
  const dir = mkdtempSync(join(tmpdir(), 'with-postgres-'));
  const log = join(dir, 'apt-get.log');
  const fake = (name: string, body: string) => {
    writeFileSync(join(dir, name), `#!/bin/sh\n${body}\n`);
    chmodSync(join(dir, name), 0o755);
  };
  fake('apt-get', `echo "$*" >> '${log}'; [ "$1" = update ] || exit 100`);
  fake('id', 'echo 0');
  writeFileSync(log, '');
  const { CI: _ci, PGBIN: _pgbin, ...rest } = process.env;
  const result = spawnSync('bash', ['scripts/with-postgres.sh', 'echo', 'ran'], {
    env: { ...rest, PATH: `${dir}:${process.env.PATH}`, PG_LIB: join(dir, 'none'), ...env },
    encoding: 'utf8',
  });
  return { ...result, apt: readFileSync(log, 'utf8') };
}

describe('scripts/with-postgres.sh without PostgreSQL', () => {
  it('tries to install Debian’s postgresql as root, and fails under CI=true when it cannot', () => {
    const run = runWithoutPostgres({ CI: 'true' });
    expect(run.apt).toMatch(/^update/m);
    expect(run.apt).toMatch(/^install .*\bpostgresql$/m);
    expect(run.stdout).not.toContain('ran');
    expect(run.stderr).toContain("installing Debian's postgresql failed");
    expect(run.stderr).toContain('failing, as CI must run: echo ran');
    expect(run.status).toBe(1);
  });

  it('outside CI says loudly that it did not run', () => {
    const run = runWithoutPostgres({});
    expect(run.stdout).not.toContain('ran');
    expect(run.stderr).toContain('NOT running: echo ran');
    expect(run.status).toBe(0);
  });
});
