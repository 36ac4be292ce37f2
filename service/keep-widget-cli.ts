import { createHash } from 'node:crypto';
import { nodeWidgetRelease } from './console-node.js';
import { openStorage, withStores } from './storage/open.js';
import type { Stores, WidgetReleaseFiles } from './storage/types.js';

const USAGE =
  'usage: agent-chat-service keep-widget DIR  (DIR: the widget/ folder of an earlier release, dist/widget in its agent-chat-service package; --data DIR or DATABASE_URL)';

/** Where the lines go: what was kept to stdout, what went wrong to stderr. */
export interface KeepWidgetOutput {
  print(line: string): void;
  error(line: string): void;
}

const consoleOutput: KeepWidgetOutput = {
  print: (line) => console.log(line),
  error: (line) => console.error(line),
};

const sri = (body: Uint8Array) => `sha384-${createHash('sha384').update(body).digest('base64')}`;

/**
 * `agent-chat-service keep-widget DIR`: keeps the widget release in DIR (a build's `widget/`
 * folder, one version in it) as the service keeps its own (decision 743), so that pages pinned
 * to a release from before 741, which kept nothing, load it again from the upgraded service.
 * Every file must match its hash in the release's sri.json: the pinned pages check the same
 * hashes. The exit code: 0, 1 with the reason on stderr, 2 for a wrong call.
 */
export async function keepWidgetCommand(
  args: string[],
  store: { databaseUrl?: string; dataDir: string },
  out: KeepWidgetOutput = consoleOutput,
  open: (store: { databaseUrl?: string; dataDir: string }) => Promise<Stores> = openStorage,
): Promise<number> {
  const fail = (message: string, code = 1) => {
    out.error(`agent-chat-service keep-widget: ${message}`);
    return code;
  };
  if (args.length !== 1) return fail(USAGE, 2);
  const release = await nodeWidgetRelease({ dir: args[0] }).catch(() => null);
  if (!release)
    return fail(
      `${args[0]} holds no widget release: name a folder with one version folder in it (its sri.json and files, named with letters, digits, . _ + - and / between folders).`,
    );
  const files: WidgetReleaseFiles['files'] = [];
  for (const name of [...Object.keys(release.sri), 'sri.json']) {
    const file = await release.file(name);
    if (!file) return fail(`${name} is missing: sri.json names it, and pinned pages load it.`);
    if (name !== 'sri.json' && sri(file.body) !== release.sri[name])
      return fail(`${name} does not match its hash in sri.json: these are not the files pinned pages check.`);
    files.push({ name, ...file });
  }
  return withStores(
    () => open(store),
    (message) => fail(message),
    async (storage) => {
      const result = await storage.widgets.keepWidgetRelease(
        { version: release.version, sri: release.sri, files },
        Date.now(),
      );
      const said = { stored: 'Kept', kept: 'Already kept', replaced: 'Replaced the files kept for' }[result];
      out.print(
        `${said} widget release ${release.version} (${files.length} files): pages pinned to it load it from /widget/${release.version}/.`,
      );
      return 0;
    },
  );
}
