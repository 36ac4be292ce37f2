import { scryptPasswords } from './console-node.js';
import { MIN_PASSWORD_CHARS, USERNAME } from './routes/console/auth.js';
import { openStorage, withStores } from './storage/open.js';
import type { AccountStore } from './storage/types.js';

const MAX_PASSWORD_CHARS = 1_024;

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

/** `agent-chat-service admin add USERNAME`: the exit code (0, or 1 with the reason on stderr). */
export async function addAdmin(
  args: string[],
  store: { databaseUrl?: string; dataDir: string },
): Promise<number> {
  const fail = (message: string, code = 1) => {
    console.error(`agent-chat-service admin: ${message}`);
    return code;
  };
  if (args[0] !== 'add' || args.length !== 2)
    return fail(
      'usage: agent-chat-service admin add USERNAME  (password on stdin; --data DIR or DATABASE_URL)',
      2,
    );
  const username = args[1].toLowerCase();
  if (!USERNAME.test(username))
    return fail(
      `"${args[1]}" is not a username: 1 to 64 letters, digits and . _ @ -, starting with a letter or digit.`,
    );
  const password = await checkedPassword();
  if (!password.ok) return fail(password.reason);
  return withStores(
    () => openStorage(store),
    (message) => fail(message),
    async (storage) => {
      if (!(await saveAdmin(storage.accounts, username, password.value)))
        return fail(`an admin named ${username} exists already.`);
      console.log(
        `Added console admin ${username} (${store.databaseUrl ? 'PostgreSQL' : `data in ${store.dataDir}`}).`,
      );
      return 0;
    },
  );
}

/** The password from stdin, or why it cannot be one. */
async function checkedPassword(): Promise<{ ok: true; value: string } | { ok: false; reason: string }> {
  let password: string;
  try {
    password = await readPassword();
  } catch (error) {
    return { ok: false, reason: error instanceof Error ? error.message : 'could not read the password.' };
  }
  // Characters as people count them (code points), as NIST's minimum length means.
  // oxlint-disable-next-line typescript/no-misused-spread -- splitting into code points is the point
  const length = [...password].length;
  if (length < MIN_PASSWORD_CHARS)
    return {
      ok: false,
      reason: `the password must be at least ${MIN_PASSWORD_CHARS} characters (it has ${length}).`,
    };
  if (length > MAX_PASSWORD_CHARS)
    return { ok: false, reason: `the password must be at most ${MAX_PASSWORD_CHARS} characters.` };
  return { ok: true, value: password };
}

/** The admin and its audit entry; false when the name is taken. */
async function saveAdmin(accounts: AccountStore, username: string, password: string): Promise<boolean> {
  const now = Date.now();
  const passwordHash = await scryptPasswords.hash(password);
  if (!(await accounts.createAdmin({ username, passwordHash, createdAt: now }))) return false;
  await accounts.appendAudit({
    at: now,
    actor: 'cli',
    action: 'admin.add',
    projectId: null,
    target: username,
    detail: null,
    address: null,
  });
  return true;
}
