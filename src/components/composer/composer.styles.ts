import { css } from 'lit';
import { SHORT_PANEL } from '../../styles/short-panel.js';

export default css`
  :host {
    display: block;
    padding: 8px var(--agent-chat-space) max(10px, env(safe-area-inset-bottom));
    border-top: 1px solid var(--agent-chat-color-border);
    background: var(--agent-chat-composer-background, var(--agent-chat-color-surface));
  }
  /* One rounded field holds the files, the text and both buttons (as ChatGPT, ChatKit and Intercom
     draw it): its edge and its focus ring are the message box's. A border and an outline, never a
     shadow, so forced colours keep both. The edge is a control's boundary, so it reaches 3:1 on
     the surface (WCAG 1.4.11): the border token, a divider's, is darkened toward the muted text. */
  form {
    border: 1px solid color-mix(in srgb, var(--agent-chat-color-text-muted) 60%, var(--agent-chat-color-border));
    border-radius: 22px;
    background: var(--agent-chat-color-surface);
    padding: 4px;
  }
  form:focus-within {
    outline: 2px solid var(--agent-chat-color-focus);
    outline-offset: -1px;
  }
  .row {
    display: flex;
    align-items: flex-end;
    gap: 4px;
  }
  textarea {
    flex: 1;
    min-width: 0;
    resize: none;
    min-height: 36px;
    max-height: 160px;
    /* 16px keeps iOS Safari from zooming the page on focus. */
    font: 16px/1.4 var(--agent-chat-font-family);
    color: var(--agent-chat-color-text);
    background: transparent;
    border: 0;
    padding: 7px 6px;
    field-sizing: content;
  }
  /* The field's ring is drawn around the whole field. */
  textarea:focus-visible {
    outline: 0;
  }
  /* Without "Attach files" the text starts where the button would. */
  textarea:first-child {
    padding-inline-start: 12px;
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
    width: 36px;
    height: 36px;
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
    margin: 4px 8px;
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
  /* In a short panel (decision 810) the message box stays one line and scrolls inside, as
     ChatGPT's does with the keyboard up: every line it grew would come off the conversation. */
  @container ${SHORT_PANEL} {
    :host { padding-block: 4px max(4px, env(safe-area-inset-bottom)); }
    form { padding: 2px; }
    textarea { min-height: 32px; max-height: 32px; padding-block: 4px; }
    button { width: 32px; height: 32px; }
  }
`;
