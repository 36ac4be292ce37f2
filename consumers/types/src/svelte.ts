// Svelte's declarations for <agent-chat> (Svelte's own types need node16, nodenext or bundler).
import type {} from 'agent-chat/svelte';
import type { SvelteHTMLElements } from 'svelte/elements';

export const svelteProps: SvelteHTMLElements['agent-chat'] = { mode: 'inline', heading: 'Help' };
// @ts-expect-error: theme is 'light' | 'dark' | 'auto'
export const wrongTheme: SvelteHTMLElements['agent-chat'] = { theme: 'blue' };
