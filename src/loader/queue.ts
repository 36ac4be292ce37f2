import { METHODS } from './surface.js';

type Command = [string, ...unknown[]];

/**
 * The pre-load queue of the UI contract: `(window.agentChat = window.agentChat || []).push([...])`
 * before the script arrived; the commands run in order on the first <agent-chat> of the page,
 * and later pushes run at once.
 */
export function runPreloadQueue(): void {
  const w = window as unknown as { agentChat?: Command[] | { push: (...commands: Command[]) => number } };
  const pending: Command[] = Array.isArray(w.agentChat) ? [...w.agentChat] : [];
  let chain = Promise.resolve();
  const run = (command: Command) => {
    chain = chain
      .then(async () => {
        const el = document.querySelector('agent-chat') as unknown as Record<string, unknown> | null;
        const [method, ...args] = Array.isArray(command) ? command : [];
        if (!el || typeof method !== 'string' || !(METHODS as readonly string[]).includes(method)) {
          console.error(
            `[agent-chat] Ignored a queued command: ${JSON.stringify(command)}. Use one of ${METHODS.join(', ')} once an <agent-chat> is on the page.`,
          );
          return;
        }
        await (el[method] as (...a: unknown[]) => unknown)(...args);
      })
      .catch((error) => console.error('[agent-chat] A queued command failed.', error));
  };
  w.agentChat = { push: (...commands: Command[]) => (commands.forEach(run), 0) };
  const start = () => pending.forEach(run);
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start, { once: true });
  else start();
}
