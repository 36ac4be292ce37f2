/**
 * The one token table: every public CSS custom property with its defaults. The styles declare
 * these (tokens.styles.ts), and test/unit/token-table.test.ts keeps the manifest's `@cssprop`
 * lines (agent-chat.ts) and the table in docs/reference.md equal to it, printing the expected text on a
 * difference. `dark` is the dark theme's value where it differs. Descriptions are a separate
 * export, so the bundle (which imports only TOKENS) does not carry them.
 */
export const TOKENS: ReadonlyArray<readonly [name: string, light: string, dark?: string]> = [
  ['--agent-chat-color-accent', '#1d4ed8', '#8ab4ff'],
  ['--agent-chat-color-on-accent', '#ffffff', '#0b1220'],
  ['--agent-chat-color-surface', '#ffffff', '#1b1d21'],
  ['--agent-chat-color-surface-raised', '#f3f4f6', '#272a30'],
  ['--agent-chat-color-text', '#1f2328', '#e6e8eb'],
  ['--agent-chat-color-text-muted', '#57606a', '#a8b0ba'],
  ['--agent-chat-color-border', '#d0d7de', '#3d434c'],
  ['--agent-chat-color-danger', '#b42318', '#ff8f85'],
  ['--agent-chat-color-focus', 'var(--agent-chat-color-accent)'],
  ['--agent-chat-color-code-background', '#f6f8fa', '#111316'],
  ['--agent-chat-shadow', '0 12px 40px rgb(0 0 0 / 0.18)', '0 12px 40px rgb(0 0 0 / 0.5)'],
  ['--agent-chat-font-family', "system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif"],
  ['--agent-chat-font-size', '15px'],
  ['--agent-chat-radius', '12px'],
  ['--agent-chat-space', '12px'],
  ['--agent-chat-panel-width', '400px'],
  ['--agent-chat-panel-height', '640px'],
  ['--agent-chat-sidebar-background', 'var(--agent-chat-color-surface)'],
  ['--agent-chat-sidebar-width', '280px'],
  ['--agent-chat-message-max-width', '85%'],
  ['--agent-chat-composer-background', 'var(--agent-chat-color-surface)'],
  ['--agent-chat-z-index', '2147483000'],
];

export const TOKEN_DOCS: Readonly<Record<string, string>> = {
  '--agent-chat-color-accent': 'Launcher, visitor bubbles, Send button',
  '--agent-chat-color-on-accent': 'Text and icons on the accent colour',
  '--agent-chat-color-surface': 'Panel background',
  '--agent-chat-color-surface-raised': 'Hover, pressed and selected backgrounds',
  '--agent-chat-color-text': 'Text',
  '--agent-chat-color-text-muted': 'Secondary text',
  '--agent-chat-color-border':
    "Borders and dividers; a text field's edge mixes it with the muted text, for 3:1",
  '--agent-chat-color-danger': 'Errors',
  '--agent-chat-color-focus': 'Focus rings (the accent unless set)',
  '--agent-chat-color-code-background': 'Code blocks',
  '--agent-chat-shadow': 'Shadow of the launcher, the floating panel and the conversations list over it',
  '--agent-chat-font-family': 'Font',
  '--agent-chat-font-size': 'Base font size',
  '--agent-chat-radius': 'Corner radius of the panel',
  '--agent-chat-space': 'Base spacing unit',
  '--agent-chat-panel-width': 'Width of the floating panel',
  '--agent-chat-panel-height': 'Height of the panel',
  '--agent-chat-sidebar-background': 'Background of the conversations list',
  '--agent-chat-sidebar-width':
    'Width of the conversations list (at most 85 %, over the conversation, on narrow panels)',
  '--agent-chat-message-max-width': 'Widest a visitor bubble gets',
  '--agent-chat-composer-background': 'Background of the message box area',
  '--agent-chat-z-index':
    'Stacking order of launcher and panel where the browser has no popovers (they are drawn over the page)',
};

/** The declarations of the light set, or of the dark overrides: for the styles and the loader's stand-in. */
export function tokenDeclarations(dark: boolean): string {
  return TOKENS.map(([name, light, darkValue]) =>
    dark ? (darkValue ? `${name}: ${darkValue};` : '') : `${name}: ${light};`,
  ).join('');
}
