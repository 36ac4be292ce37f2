import '../src/index.js';
import type { AgentChat } from '../src/components/agent-chat/agent-chat.js';

const OWNER_COOKIE = 'demo_user';
const chats = () => Array.from(document.querySelectorAll<AgentChat>('agent-chat'));

function readOwner(): string {
  return /(?:^|;\s*)demo_user=([^;]*)/.exec(document.cookie)?.[1] ?? 'alice';
}

const ownerSelect = document.querySelector<HTMLSelectElement>('#owner')!;
const themeSelect = document.querySelector<HTMLSelectElement>('#theme')!;

ownerSelect.value = readOwner();
document.cookie = `${OWNER_COOKIE}=${ownerSelect.value}; path=/; SameSite=Lax`;

/**
 * The signed-in visitor's owner key, as a site's page template renders it into `owner-key`: the
 * widget then knows who is here before any session (the start screen offers their latest
 * conversations, and another visitor's remembered ones are never shown).
 */
async function applyOwnerKey(): Promise<void> {
  const { ownerKey } = (await (await fetch('/api/owner-key')).json()) as { ownerKey: string };
  for (const chat of chats()) chat.ownerKey = ownerKey;
}
void applyOwnerKey();

// The "login" is a cookie only the demo server reads; a new owner means a new session.
ownerSelect.addEventListener('change', () => {
  document.cookie = `${OWNER_COOKIE}=${ownerSelect.value}; path=/; SameSite=Lax`;
  for (const chat of chats()) void chat.clearSession();
  void applyOwnerKey();
});

function applyTheme(): void {
  for (const chat of chats()) chat.theme = themeSelect.value as AgentChat['theme'];
  document.documentElement.dataset.theme = themeSelect.value;
}
themeSelect.addEventListener('change', applyTheme);
applyTheme();

// A client-side tool (§7) with approval: "Open the pricing page" makes the demo agent call it,
// the visitor allows or denies it, and the answer continues with the result.
for (const chat of chats()) {
  chat.tools = [
    {
      name: 'open_page',
      displayName: 'Open a page',
      description: 'Opens a page of this site by its name, e.g. "pricing".',
      parameters: {
        type: 'object',
        properties: { page: { type: 'string', description: 'The page name' } },
        required: ['page'],
      },
      needsApproval: true,
      // What the card says before Allow / Deny, in the visitor's words.
      describe: ({ page }) => `Open the ${String(page)} page`,
      execute: ({ page }) => {
        const target = `#${String(page).replace(/\W+/g, '-')}`;
        location.hash = target;
        return { opened: target };
      },
    },
  ];
}
