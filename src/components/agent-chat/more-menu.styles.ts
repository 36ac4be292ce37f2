import { css } from 'lit';

/** The header's "More" menu. */
export default css`
  .more { position: relative; flex: none; }
  .menu {
    position: absolute; inset-inline-end: 0; top: calc(100% + 4px); z-index: 3; min-width: 220px;
    display: grid; padding: 4px; border-radius: 12px;
    border: 1px solid var(--agent-chat-color-border); background: var(--agent-chat-color-surface);
    box-shadow: var(--agent-chat-shadow);
  }
  .menu button {
    display: flex; align-items: center; gap: 10px; min-height: 36px; padding: 6px 10px;
    border: 0; border-radius: 8px; background: none; cursor: pointer; text-align: start; white-space: nowrap;
  }
  .menu button:hover, .menu button:focus-visible { background: var(--agent-chat-color-surface-raised); }
  /* The ring inside the item: outside, it lay on the menu's own edge. */
  .menu button:focus-visible { outline-offset: -2px; }
  .menu svg { flex: none; width: 18px; height: 18px; color: var(--agent-chat-color-text-muted); }
  @media (pointer: coarse) {
    .menu button { min-height: 44px; }
  }
`;
