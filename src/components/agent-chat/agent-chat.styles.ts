import { css } from 'lit';

export default css`
  :host {
    font-family: var(--agent-chat-font-family);
    font-size: var(--agent-chat-font-size);
    color: var(--agent-chat-color-text);
  }
  :host([mode='inline']) {
    display: block;
  }
  .launcher {
    position: fixed;
    right: 20px;
    bottom: 20px;
    z-index: var(--agent-chat-z-index);
    width: 56px;
    height: 56px;
    border: 0;
    border-radius: 50%;
    background: var(--agent-chat-color-accent);
    color: var(--agent-chat-color-on-accent);
    box-shadow: var(--agent-chat-shadow);
    cursor: pointer;
    display: grid;
    place-items: center;
  }
  .launcher svg {
    width: 26px;
    height: 26px;
  }
  .panel {
    display: flex;
    flex-direction: column;
    overflow: hidden;
    background: var(--agent-chat-color-surface);
    color: var(--agent-chat-color-text);
    border: 1px solid var(--agent-chat-color-border);
    border-radius: var(--agent-chat-radius);
  }
  .panel.floating {
    position: fixed;
    right: 20px;
    bottom: 88px;
    z-index: var(--agent-chat-z-index);
    width: min(var(--agent-chat-panel-width), calc(100vw - 40px));
    height: min(var(--agent-chat-panel-height), calc(100vh - 120px));
    box-shadow: var(--agent-chat-shadow);
  }
  .panel.inline {
    height: var(--agent-chat-panel-height);
  }
  header {
    display: flex;
    align-items: center;
    gap: 4px;
    padding: 8px 8px 8px var(--agent-chat-space);
    border-bottom: 1px solid var(--agent-chat-color-border);
  }
  h2 {
    flex: 1;
    margin: 0;
    font-size: 1em;
    font-weight: 600;
  }
  .icon-button {
    border: 0;
    background: none;
    border-radius: 8px;
    height: 32px;
    padding: 0 8px;
    cursor: pointer;
    color: var(--agent-chat-color-text);
  }
  .icon-button:hover {
    background: var(--agent-chat-color-surface-raised);
  }
  .body {
    flex: 1;
    min-height: 0;
    display: flex;
    position: relative;
    container-type: inline-size;
  }
  #sidebar {
    width: var(--agent-chat-sidebar-width, 240px);
    flex: none;
  }
  .notice {
    margin: var(--agent-chat-space, 12px);
    color: var(--agent-chat-color-danger);
  }

  .main {
    flex: 1;
    min-width: 0;
    display: flex;
    flex-direction: column;
  }
  .conversation {
    flex: 1;
    min-height: 0;
  }
  /* In a narrow panel the list is a drawer over the conversation, not a column beside it. */
  @container (max-width: 560px) {
    #sidebar {
      position: absolute;
      inset: 0 auto 0 0;
      z-index: 1;
      width: min(var(--agent-chat-sidebar-width, 280px), 85%);
      box-shadow: var(--agent-chat-shadow);
    }
  }
  @media (max-width: 480px) {
    .panel.floating {
      inset: 0;
      width: 100%;
      height: var(--_agent-chat-viewport-height, 100dvh);
      border-radius: 0;
      border: 0;
    }
  }
`;
