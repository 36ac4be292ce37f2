/**
 * The Audit log says each action in words: an action the service records with no words on the
 * page showed as its raw name ("webhook.create", "webhook.test") among sentences.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AUDIT_ACTIONS } from '../../../../service/console/format.js';

const SERVICE = join(import.meta.dirname, '../../../../service');

/** Every action name the service's code passes to an audit call (`audit(…)`, `cliAudit(…)`). */
async function auditedActions(): Promise<Set<string>> {
  const found = new Set<string>();
  const files = (await readdir(SERVICE, { recursive: true })).filter(
    (f) =>
      f.endsWith('.ts') && !f.startsWith('dist') && !f.includes('node_modules') && !f.startsWith('console/'),
  );
  for (const file of files) {
    const text = await readFile(join(SERVICE, file), 'utf8');
    for (const call of text.matchAll(/\b\w*[aA]udit\(([^;]*?)\)[;,]/gs))
      for (const [, name] of call[1].matchAll(/'([a-z_]+(?:\.[a-z_]+)+|sign_in|sign_out)'/g)) found.add(name);
  }
  return found;
}

describe('the Audit log in words', () => {
  it('has words for every action the service records', async () => {
    const actions = await auditedActions();
    // The scan finds the calls (a scan that finds none would pass for nothing).
    expect(actions).toContain('key.revoke');
    expect(actions).toContain('admin.add');
    expect([...actions].filter((a) => !AUDIT_ACTIONS[a]).sort()).toEqual([]);
  });
});
