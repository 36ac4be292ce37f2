import { ownerKey } from '../contract/owner-key.js';
import { eraseOwner } from './routes/erase.js';
import { openStorage, withStores } from './storage/open.js';
import type { Stores } from './storage/types.js';

const USAGE =
  'usage: agent-chat-service erase-owner --project ID --owner OWNER_ID  (--data DIR or DATABASE_URL)';

/** Where the lines go: what was removed to stdout, what went wrong to stderr. */
export interface EraseOutput {
  print(line: string): void;
  error(line: string): void;
}

const consoleOutput: EraseOutput = {
  print: (line) => console.log(line),
  error: (line) => console.error(line),
};

/**
 * `agent-chat-service erase-owner --project P --owner O`: everything the service holds for the
 * owner O (the `external_owner_id` the site's server gives its sessions) in project P, as the
 * console's "Erase this visitor's data" erases it (decision 601), with an audit entry by `cli`;
 * prints what it removed. The exit code: 0, 1 with the reason on stderr, 2 for a wrong call.
 * On PostgreSQL it runs beside the service: an answer generating for the owner on an instance
 * stops at its next write, finding its thread gone.
 */
export async function eraseOwnerCommand(
  args: string[],
  options: { project?: string; owner?: string },
  store: { databaseUrl?: string; dataDir: string },
  out: EraseOutput = consoleOutput,
  open: (store: { databaseUrl?: string; dataDir: string }) => Promise<Stores> = openStorage,
): Promise<number> {
  const fail = (message: string, code = 1) => {
    out.error(`agent-chat-service erase-owner: ${message}`);
    return code;
  };
  const { project: projectId, owner } = options;
  if (args.length || !projectId || !owner) return fail(USAGE, 2);
  return withStores(
    () => open(store),
    (message) => fail(`${message} Or erase from the console.`),
    async (storage) => {
      const project = await storage.directory.getProject(projectId);
      if (!project) return fail(`no project ${projectId}.`);
      const erased = await eraseOwner(storage, () => {}, project.id, owner);
      const key = await ownerKey(owner, project.ownerSecret);
      await storage.accounts.appendAudit({
        at: Date.now(),
        actor: 'cli',
        action: 'owner.erase',
        projectId: project.id,
        target: key,
        detail: { ...erased },
        address: null,
      });
      out.print(`Erased owner ${key} (as the console shows it) in project ${project.id}:`);
      out.print(`  conversations  ${erased.conversations} (with their messages, files and reactions)`);
      out.print(`  sessions       ${erased.sessions}`);
      out.print(`  reactions      ${erased.feedback} (on other conversations)`);
      out.print(`  unused files   ${erased.files}`);
      out.print(`  events         ${erased.events} (kept for the activity figures, without the owner)`);
      return 0;
    },
  );
}
