import { css } from 'lit';

export default css`
  :host {
    display: block;
    border-top: 1px solid var(--agent-chat-color-border);
    background: var(--agent-chat-composer-background, var(--agent-chat-color-surface));
  }
  form {
    display: flex;
    align-items: flex-end;
    gap: 8px;
    padding: 10px var(--agent-chat-space) max(10px, env(safe-area-inset-bottom));
  }
  textarea {
    flex: 1;
    resize: none;
    min-height: 40px;
    max-height: 160px;
    /* 16px keeps iOS Safari from zooming the page on focus. */
    font: 16px/1.4 var(--agent-chat-font-family);
    color: var(--agent-chat-color-text);
    background: var(--agent-chat-color-surface);
    border: 1px solid var(--agent-chat-color-border);
    border-radius: 10px;
    padding: 9px 10px;
    field-sizing: content;
  }
  textarea::placeholder {
    color: var(--agent-chat-color-text-muted);
    opacity: 1;
  }
  /* An icon button: round, the accent colour while there is something to send. */
  button {
    flex: none;
    display: grid;
    place-items: center;
    width: 40px;
    height: 40px;
    border: 0;
    border-radius: 50%;
    padding: 0;
    cursor: pointer;
    background: var(--agent-chat-color-accent);
    color: var(--agent-chat-color-on-accent);
  }
  button[aria-disabled='true'] {
    opacity: 0.45;
    cursor: not-allowed;
  }
  /* "Attach files": quiet beside the accent Send. */
  button.attach {
    background: transparent;
    color: var(--agent-chat-color-text-muted);
  }
  button.attach:hover {
    background: var(--agent-chat-color-surface-raised);
    color: var(--agent-chat-color-text);
  }
  /* Until the attachment view has loaded (or where it cannot), files are a list of names. */
  .plain {
    margin: 8px var(--agent-chat-space) 0;
    padding-inline-start: 1.2em;
    font-size: 13px;
    color: var(--agent-chat-color-text-muted);
  }
  .plain:empty {
    margin: 0;
  }
  button.stop {
    background: var(--agent-chat-color-surface-raised);
    color: var(--agent-chat-color-text);
    border: 1px solid var(--agent-chat-color-border);
  }
  @media (pointer: coarse) {
    button { width: 44px; height: 44px; }
  }
`;
