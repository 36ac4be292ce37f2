import { adminCommand } from './admin-cli.js';
import { eraseOwnerCommand } from './erase-cli.js';
import { exportConversationsCommand } from './export-cli.js';
import { moveToPostgres } from './move-cli.js';
import { keepWidgetCommand } from './keep-widget-cli.js';
import { docsCommand } from './cli/docs-command.js';
import { docsOf } from './cli/docs-flags.js';
import { env, flags, storeAt } from './cli/flags.js';
import { HELP } from './cli/help.js';
import { start } from './cli/serve.js';

/** The program, `agent-chat-service`: its flags read, then the command they name, or the service. */
async function main() {
  const { values, positionals } = flags();
  if (values.help) {
    console.log(HELP);
    return;
  }
  const store = storeAt(values);
  const args = positionals.slice(1);
  const commands: Record<string, () => Promise<number>> = {
    admin: () => adminCommand(args, { allowNoAdmins: values['allow-no-admins'], role: values.role }, store),
    'erase-owner': () => eraseOwnerCommand(args, values, store),
    'export-conversations': () => exportConversationsCommand(args, values, store),
    'move-to-postgres': () => moveToPostgres(args, store),
    'keep-widget': () => keepWidgetCommand(args, store),
  };
  if (positionals.length && Object.hasOwn(commands, positionals[0])) {
    process.exitCode = await commands[positionals[0]]();
    return;
  }
  const command = positionals[0];
  if (positionals.length && !(command === 'search' || command === 'test')) {
    console.error(`agent-chat-service: unknown command ${positionals.join(' ')}.\n`);
    console.error(HELP);
    process.exit(2);
  }
  const port = Number(values.port ?? env.PORT ?? 8787);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    console.error(`agent-chat-service: --port must be 0 to 65535, not ${values.port ?? env.PORT}.`);
    process.exit(2);
  }
  const docs = docsOf(values, command !== undefined);
  if (command === 'search' || command === 'test') {
    process.exitCode = await docsCommand(command, positionals.slice(1), docs, values);
    return;
  }
  await start(values, port, docs.setup);
}

main().catch((error) => {
  console.error(`agent-chat-service: ${error instanceof Error ? error.message : error}`);
  process.exit(1);
});
