import { css } from 'lit';

export default css`
  :host {
    display: flex;
    flex-direction: column;
    min-height: 0;
    background: var(--agent-chat-sidebar-background, var(--agent-chat-color-surface));
    border-inline-end: 1px solid var(--agent-chat-color-border);
  }
  h3 {
    margin: 0;
    padding: 10px var(--agent-chat-space) 6px;
    font-size: 0.85em;
    font-weight: 600;
    color: var(--agent-chat-color-text-muted);
    text-transform: uppercase;
    letter-spacing: 0.04em;
  }
  .scroller {
    flex: 1;
    min-height: 0;
    overflow-y: auto;
    padding: 0 6px 8px;
  }
  ul {
    margin: 0;
    padding: 0;
    list-style: none;
  }
  li {
    display: flex;
    align-items: center;
    border-radius: 8px;
  }
  li[aria-current='true'] {
    background: var(--agent-chat-color-surface-raised);
  }
  .open {
    flex: 1;
    min-width: 0;
    display: flex;
    flex-direction: column;
    align-items: flex-start;
    gap: 2px;
    border: 0;
    background: none;
    padding: 6px 8px;
    text-align: start;
    cursor: pointer;
    border-radius: 8px;
  }
  .title {
    max-width: 100%;
    overflow: hidden;
    white-space: nowrap;
    text-overflow: ellipsis;
  }
  .time {
    font-size: 0.8em;
    color: var(--agent-chat-color-text-muted);
  }
  .delete,
  .confirm button,
  .state button {
    border: 1px solid var(--agent-chat-color-border);
    background: var(--agent-chat-color-surface);
    color: var(--agent-chat-color-text);
    border-radius: 6px;
    padding: 2px 8px;
    cursor: pointer;
  }
  .delete {
    border-color: transparent;
    background: none;
  }
  .confirm {
    display: flex;
    flex-wrap: wrap;
    gap: 6px;
    align-items: center;
    padding: 6px 8px;
    font-size: 0.9em;
  }
  .confirm .danger {
    color: var(--agent-chat-color-danger);
    border-color: currentColor;
  }
  .state {
    padding: 8px var(--agent-chat-space);
    color: var(--agent-chat-color-text-muted);
    font-size: 0.9em;
  }
  .state p {
    margin: 0 0 6px;
  }
`;
