import { css } from 'lit';
import { SHORT_PANEL } from '../../styles/short-panel.js';

export default css`
  /* Text styles inherit into a shadow root: a theme's footer or hero (uppercase, tracked, bold,
     centred, nowrap) would restyle every text of a widget pasted there. Set on the host, where a
     rule that names the element itself (a text-spacing tool's \`*\`) still wins (decision 560). */
  :host {
    font: 400 var(--agent-chat-font-size) / normal var(--agent-chat-font-family);
    color: var(--agent-chat-color-text);
    letter-spacing: normal;
    word-spacing: normal;
    text-align: start;
    text-indent: 0;
    text-transform: none;
    text-shadow: none;
    white-space: normal;
    word-break: normal;
    overflow-wrap: normal;
    hyphens: manual;
    writing-mode: horizontal-tb;
    cursor: auto;
  }
  :host([mode='inline']) {
    display: block;
  }
  /* Both are manual popovers in the top layer (decision 561): the popover's own centring goes. */
  .launcher {
    position: fixed;
    inset: auto;
    margin: 0;
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
  /* A right-to-left page's corner is the bottom left: the launcher and its panel (above a phone's
     full screen) follow the page, and the panel grows from there. */
  :host(:dir(rtl)) .launcher {
    right: auto;
    left: 20px;
  }
  @media (min-width: 481px) {
    :host(:dir(rtl)) .panel.floating {
      right: auto;
      left: 20px;
      transform-origin: bottom left;
    }
  }
  .launcher svg {
    width: 26px;
    height: 26px;
  }
  .launcher:hover {
    filter: brightness(1.1);
  }
  /* Forced colours drop the disc, its background: a ring draws it (decision 483). */
  @media (forced-colors: active) {
    .launcher {
      border: 2px solid;
    }
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
    inset: auto;
    margin: 0;
    padding: 0;
    right: 20px;
    bottom: 88px;
    z-index: var(--agent-chat-z-index);
    width: min(var(--agent-chat-panel-width), calc(100vw - 40px));
    height: min(var(--agent-chat-panel-height), calc(100vh - 120px));
    box-shadow: var(--agent-chat-shadow);
    /* Its width and height are always set here, so it can be a size container: its own height
       (the visual viewport's on a phone) is what makes it short (short-panel.ts). */
    container-type: size;
  }
  .panel:focus {
    outline: none;
  }
  .panel.inline {
    height: var(--agent-chat-panel-height);
  }
  /* One line, always: icon buttons at the ends, the title truncates between them. */
  header {
    display: flex;
    align-items: center;
    gap: 2px;
    min-height: 52px;
    padding: 6px 6px;
    border-bottom: 1px solid var(--agent-chat-color-border);
  }
  h2 {
    flex: 1;
    min-width: 0;
    margin: 0 4px;
    font-size: 1em;
    font-weight: 600;
    white-space: nowrap;
    overflow: hidden;
    text-overflow: ellipsis;
  }
  .avatar {
    flex: none;
    width: 28px;
    height: 28px;
    border-radius: 50%;
    object-fit: cover;
    margin-inline-start: 2px;
  }
  .disclaimer {
    margin: 0;
    padding: 0 var(--agent-chat-space) max(8px, env(safe-area-inset-bottom));
    font-size: 0.75em;
    text-align: center;
    color: var(--agent-chat-color-text-muted);
    background: var(--agent-chat-composer-background);
  }
  .icon-button {
    flex: none;
    display: grid;
    place-items: center;
    width: 36px;
    height: 36px;
    border: 0;
    background: none;
    border-radius: 8px;
    padding: 0;
    cursor: pointer;
    color: var(--agent-chat-color-text);
  }
  .icon-button:hover,
  .icon-button[aria-expanded='true'] {
    background: var(--agent-chat-color-surface-raised);
  }
  @media (pointer: coarse) {
    .icon-button {
      width: 44px;
      height: 44px;
    }
  }
  .body {
    flex: 1;
    min-height: 0;
    display: flex;
    position: relative;
    container-type: inline-size;
  }
  #thread-list {
    width: var(--agent-chat-sidebar-width);
    flex: none;
  }
  .notice {
    margin: var(--agent-chat-space);
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
  .scrim {
    display: none;
  }
  /* In a narrow panel the thread list covers the conversation, not a column beside it, with a
     scrim that closes it. */
  @container (max-width: 560px) {
    #thread-list {
      position: absolute;
      inset-block: 0;
      inset-inline-start: 0;
      z-index: 2;
      width: min(var(--agent-chat-sidebar-width), 85%);
      box-shadow: var(--agent-chat-shadow);
    }
    .scrim {
      display: block;
      position: absolute;
      inset: 0;
      z-index: 1;
      background: rgb(0 0 0 / 0.32);
    }
  }
  @media (prefers-reduced-motion: no-preference) {
    .panel.floating:not([hidden]) {
      animation: panel-in 200ms cubic-bezier(0.2, 0.9, 0.3, 1);
      transform-origin: bottom right;
    }
    /* Closing plays the entrance backwards: display waits for the transition (allow-discrete),
       so [hidden] can be set at once and no script has to time the exit. */
    .panel.floating {
      transition: transform 150ms ease-in, opacity 150ms ease-in, display 150ms allow-discrete;
      transform-origin: bottom right;
    }
    .panel.floating[hidden] {
      transform: translateY(12px) scale(0.97);
      opacity: 0;
    }
    #thread-list:not([hidden]) {
      animation: list-in 200ms ease-out;
    }
    .scrim:not([hidden]) {
      animation: fade-in 200ms ease-out;
    }
  }
  @keyframes panel-in {
    from { transform: translateY(12px) scale(0.97); }
  }
  @keyframes list-in {
    from { transform: translateX(-100%); }
  }
  @keyframes fade-in {
    from { opacity: 0; }
  }
  :dir(rtl) #thread-list:not([hidden]) {
    animation-name: list-in-rtl;
  }
  @keyframes list-in-rtl {
    from { transform: translateX(100%); }
  }
  @media (max-width: 480px), (max-height: 480px) {
    .panel.floating {
      inset: 0;
      width: 100%;
      height: var(--_agent-chat-viewport-height, 100dvh);
      border-radius: 0;
      border: 0;
      padding: env(safe-area-inset-top) env(safe-area-inset-right) 0 env(safe-area-inset-left);
    }
  }
  /* A short panel (a landscape phone with its keyboard open) gives the conversation the room
     (decision 810): a slim header of 32 px buttons, whatever the pointer (still past WCAG's
     24 px), and the disclaimer on one line. Last, so it wins over the touch sizes above. */
  @container ${SHORT_PANEL} {
    header {
      min-height: 0;
      padding-block: 1px;
    }
    .icon-button {
      width: 32px;
      height: 32px;
    }
    .avatar {
      width: 24px;
      height: 24px;
    }
    .disclaimer {
      padding-bottom: max(2px, env(safe-area-inset-bottom));
      white-space: nowrap;
      overflow: hidden;
      text-overflow: ellipsis;
    }
  }
`;
