/**
 * `agent-chat-service admin …`: the console's admins, from the machine (decisions 689, 690, 718):
 * add (an admin, or a viewer with `--role viewer`), list, a new role, remove (never the last
 * admin unless told), and a new password for one who forgot theirs.
 */
import { CONSOLE_ROLES, type ConsoleRole } from '../contract/console.js';
import { scryptPasswords } from './console-node.js';
import {
  MAX_PASSWORD_CHARS,
  MIN_PASSWORD_CHARS,
  USERNAME,
  USERNAME_RULE,
  passwordProblem,
} from './routes/console/auth.js';
import { openStorage, withStores } from './storage/open.js';
import type { AccountStore, Stores } from './storage/types.js';

/** The password from standard input: a pipe's first line, or typed at a terminal without echo. */
async function readPassword(): Promise<string> {
  const stdin = process.stdin;
  if (stdin.isTTY) {
    process.stderr.write(`Password (at least ${MIN_PASSWORD_CHARS} characters): `);
    stdin.setRawMode(true);
    let typed = '';
    try {
      for await (const chunk of stdin) {
        for (const char of String(chunk)) {
          if (char === '\r' || char === '\n') return typed;
          if (char === '\u0003') throw new Error('cancelled.');
          typed = char === '\u007f' ? typed.slice(0, -1) : typed + char;
        }
      }
    } finally {
      stdin.setRawMode(false);
      process.stderr.write('\n');
    }
    return typed;
  }
  let text = '';
  for await (const chunk of stdin) {
    text += chunk;
    if (text.length > MAX_PASSWORD_CHARS * 4) break;
  }
  // One trailing line end (echo, a here-string) is not part of the password.
  return text.replace(/\r?\n$/, '');
}

const USAGE = `usage: agent-chat-service admin add USERNAME [--role admin|viewer] | list | role USERNAME admin|viewer
  | remove USERNAME [--allow-no-admins] | password USERNAME  (passwords on stdin; --data DIR or DATABASE_URL)`;
const ADD_HINT = 'agent-chat-service admin add USERNAME';

/** Where a command writes and reads: the process's streams, or a test's. */
export interface AdminIo {
  out(line: string): void;
  error(line: string): void;
  readPassword(): Promise<string>;
}

const processIo: AdminIo = {
  out: (line) => console.log(line),
  error: (line) => console.error(line),
  readPassword,
};

interface Where {
  databaseUrl?: string;
  dataDir: string;
}

/** `agent-chat-service admin …`: the exit code (0; 1 with the reason on stderr; 2 for a wrong call). */
export async function adminCommand(
  args: string[],
  options: { allowNoAdmins?: boolean; role?: string },
  store: Where,
  io: AdminIo = processIo,
  open: () => Promise<Stores> = () => openStorage(store),
): Promise<number> {
  const fail = (message: string, code = 1) => {
    io.error(`agent-chat-service admin: ${message}`);
    return code;
  };
  const [command, name, ...rest] = args;
  const named = command === 'add' || command === 'remove' || command === 'password' || command === 'role';
  // `role NAME ROLE` is the one command with a word after the name.
  const extra = command === 'role' ? 1 : 0;
  if (rest.length !== extra || (named ? name === undefined : command !== 'list' || name !== undefined))
    return fail(USAGE, 2);
  if (options.allowNoAdmins && command !== 'remove') return fail(USAGE, 2);
  if (options.role !== undefined && command !== 'add') return fail(USAGE, 2);
  const role = command === 'role' ? rest[0] : (options.role ?? 'admin');
  if (!(CONSOLE_ROLES as readonly string[]).includes(role))
    return fail(`"${role}" is not a role: ${CONSOLE_ROLES.join(' or ')}.`);
  const username = name?.toLowerCase() ?? '';
  if (named && !USERNAME.test(username)) return fail(`"${name}" is not a username: ${USERNAME_RULE}.`);
  let password = '';
  if (command === 'add' || command === 'password') {
    const read = await checkedPassword(io);
    if (!read.ok) return fail(read.reason);
    password = read.value;
  }
  const where = store.databaseUrl ? 'PostgreSQL' : `data in ${store.dataDir}`;
  return withStores(
    open,
    // The console changes admins while the service runs; only the first needs the command.
    (message) => fail(`${message} Or, signed in as an admin, on the console's Admins page.`),
    async ({ accounts }) => {
      if (command === 'list') return listAdmins(accounts, io);
      if (command === 'remove') return removeAdmin(accounts, username, !!options.allowNoAdmins, io, fail);
      if (command === 'password') return resetPassword(accounts, username, password, io, fail);
      if (command === 'role') return changeRole(accounts, username, role as ConsoleRole, io, fail);
      if (!(await saveAdmin(accounts, username, password, role as ConsoleRole)))
        return fail(`an admin named ${username} exists already.`);
      io.out(
        `Added console ${role === 'admin' ? 'admin' : 'viewer (reads, changes nothing)'} ${username} (${where}).`,
      );
      return 0;
    },
  );
}

/** `YYYY-MM-DD HH:MM UTC`: a time an operator reads in a terminal. */
const minute = (at: number) => `${new Date(at).toISOString().slice(0, 16).replace('T', ' ')} UTC`;

/** `admin list`: a table of names, when each was added, and when each last signed in. */
async function listAdmins(accounts: AccountStore, io: AdminIo): Promise<number> {
  const admins = await accounts.listAdmins();
  if (!admins.length) {
    io.out(`No console admins yet. Add one with: ${ADD_HINT}`);
    return 0;
  }
  const rows = [
    ['USERNAME', 'ROLE', 'ADDED', 'LAST SIGN-IN'],
    ...admins.map((a) => [
      a.username,
      a.role,
      minute(a.createdAt),
      a.lastSignInAt === null ? 'never' : minute(a.lastSignInAt),
    ]),
  ];
  const width = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  for (const row of rows)
    io.out(row.map((cell, i) => (i < row.length - 1 ? cell.padEnd(width[i]) : cell)).join('  '));
  return 0;
}

/** `admin remove NAME`: the admin goes, and every console session of theirs with them. */
async function removeAdmin(
  accounts: AccountStore,
  username: string,
  allowNone: boolean,
  io: AdminIo,
  fail: (message: string) => number,
): Promise<number> {
  const result = await accounts.removeAdmin(username, { allowNone });
  if (result === 'missing') return fail(`there is no admin named ${username}.`);
  if (result === 'last')
    return fail(
      `${username} is the only console admin: removing them leaves nobody who can change the console. Add another first (${ADD_HINT}), or pass --allow-no-admins.`,
    );
  await cliAudit(accounts, 'admin.remove', username, null);
  // Viewers left alone can change nothing: that is no admin left either (decision 718).
  const left = (await accounts.listAdmins()).some((a) => a.role === 'admin');
  io.out(
    `Removed console admin ${username}; their console sessions have ended.${left ? '' : ` No admin is left: add one with ${ADD_HINT}, or make a viewer one with agent-chat-service admin role USERNAME admin.`}`,
  );
  return 0;
}

/** `admin role NAME ROLE`: at the admin's next console call; never the last admin made a viewer. */
async function changeRole(
  accounts: AccountStore,
  username: string,
  role: ConsoleRole,
  io: AdminIo,
  fail: (message: string) => number,
): Promise<number> {
  const result = await accounts.setRole(username, role);
  if (result === 'missing') return fail(`there is no admin named ${username}.`);
  if (result === 'last')
    return fail(
      `${username} is the only console admin: as a viewer nobody could change anything. Make another one an admin first.`,
    );
  if (result === 'same') {
    io.out(`${username} is ${role === 'admin' ? 'an admin' : 'a viewer'} already.`);
    return 0;
  }
  await cliAudit(accounts, 'admin.role', username, { role });
  io.out(
    `${username} is now ${role === 'admin' ? 'an admin' : 'a viewer'}, from their next click in the console.`,
  );
  return 0;
}

/** `admin password NAME`: a new password (an admin who forgot theirs); every session of theirs ends. */
async function resetPassword(
  accounts: AccountStore,
  username: string,
  password: string,
  io: AdminIo,
  fail: (message: string) => number,
): Promise<number> {
  if (!(await accounts.getAdmin(username))) return fail(`there is no admin named ${username}.`);
  if (!(await accounts.setPasswordHash(username, await scryptPasswords.hash(password))))
    return fail(`there is no admin named ${username}.`);
  const ended = await accounts.endConsoleSessions(username);
  await cliAudit(accounts, 'admin.password', username, { sessions_ended: ended });
  io.out(
    `Set a new password for console admin ${username}; ${ended === 1 ? '1 console session' : `${ended} console sessions`} ended.`,
  );
  return 0;
}

/** The password from stdin, or why it cannot be one. */
async function checkedPassword(
  io: AdminIo,
): Promise<{ ok: true; value: string } | { ok: false; reason: string }> {
  let password: string;
  try {
    password = await io.readPassword();
  } catch (error) {
    return { ok: false, reason: error instanceof Error ? error.message : 'could not read the password.' };
  }
  const problem = passwordProblem(password);
  // The console's sentence, as a clause after the command's name.
  if (problem) return { ok: false, reason: problem[0].toLowerCase() + problem.slice(1) };
  return { ok: true, value: password };
}

const cliAudit = (
  accounts: AccountStore,
  action: string,
  target: string,
  detail: Record<string, unknown> | null,
) =>
  accounts.appendAudit({
    at: Date.now(),
    actor: 'cli',
    action,
    projectId: null,
    target,
    detail,
    address: null,
  });

/** The admin and its audit entry; false when the name is taken. */
async function saveAdmin(
  accounts: AccountStore,
  username: string,
  password: string,
  role: ConsoleRole,
): Promise<boolean> {
  const passwordHash = await scryptPasswords.hash(password);
  if (!(await accounts.createAdmin({ username, role, passwordHash, createdAt: Date.now() }))) return false;
  await cliAudit(accounts, 'admin.add', username, { role });
  return true;
}
