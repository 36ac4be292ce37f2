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

// The "login" is a cookie only the demo server reads; a new owner means a new session.
ownerSelect.addEventListener('change', () => {
  document.cookie = `${OWNER_COOKIE}=${ownerSelect.value}; path=/; SameSite=Lax`;
  for (const chat of chats()) chat.clearSession();
});

themeSelect.addEventListener('change', () => {
  for (const chat of chats()) chat.theme = themeSelect.value as AgentChat['theme'];
  document.documentElement.dataset.theme = themeSelect.value;
});
