import { css } from 'lit';

/** The bar above the composer: the outbox and "Talk to a person". */
export default css`
  .agent-bar { padding: 4px var(--agent-chat-space); font-size: 0.9em; }
  .outbox { list-style: none; margin: 0; padding: 0; }
  .outbox li { display: flex; gap: 8px; align-items: center; justify-content: flex-end; margin: 2px 0; }
  /* A question not yet sent: a bubble in a tint of the sent one's colour. */
  .outbox-text { display: flex; align-items: center; gap: 6px; min-width: 0; padding: 4px 12px; background: color-mix(in srgb, var(--agent-chat-color-accent) 14%, transparent); border-radius: 16px; }
  .outbox-words, .outbox-files { overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
  /* A long question's words give way before its files' names, which keep up to half the bubble. */
  .outbox-files { flex: none; max-width: 50%; color: var(--agent-chat-color-text-muted); }
  .outbox-files svg { width: 14px; height: 14px; vertical-align: -2px; margin-inline-end: 2px; }
  /* Only the question's words give way to a long question: Queued and its Remove keep their size. */
  .outbox-label, .offline { flex: none; color: var(--agent-chat-color-text-muted); }
  .offline { margin: 2px 0; text-align: end; }
  .bar-actions { display: flex; gap: 12px; justify-content: flex-end; }
  .link {
    font: inherit; font-size: 0.95em; background: none; border: 1px solid transparent; border-radius: 999px;
    padding: 3px 10px; cursor: pointer; color: var(--agent-chat-color-text-muted);
  }
  .link:hover { background: var(--agent-chat-color-surface-raised); color: var(--agent-chat-color-text); }
  .link.handoff { display: inline-flex; align-items: center; gap: 6px; border-color: var(--agent-chat-color-border); color: var(--agent-chat-color-text); }
  .link svg { width: 16px; height: 16px; }
  .remove { flex: none; display: grid; place-items: center; width: 28px; height: 28px; padding: 0; border: 0; border-radius: 50%; background: none; color: var(--agent-chat-color-text-muted); cursor: pointer; }
  .remove svg { width: 16px; height: 16px; }
  .remove:hover { background: var(--agent-chat-color-surface-raised); }
  .remove:focus-visible, .link:focus-visible { outline: 2px solid var(--agent-chat-color-focus); outline-offset: 1px; }
`;
