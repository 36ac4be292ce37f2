import { css } from 'lit';

export default css`
  :host {
    display: flex;
    flex-direction: column;
    min-height: 0;
    position: relative;
  }
  .scroller {
    flex: 1;
    min-height: 0;
    overflow-y: auto;
    overscroll-behavior: contain;
    padding: var(--agent-chat-space);
    /* Opaque, so Chromium composites the scroller: following a streaming answer then moves
       a layer instead of repainting the viewport every frame. */
    background: var(--agent-chat-color-surface);
  }
  .log {
    display: flex;
    flex-direction: column;
    gap: 12px;
    margin: 0;
    padding: 0;
    list-style: none;
  }
  /* Messages scrolled out of view skip layout and paint: a resumed 500-message thread lays out
     only what is on screen, and older messages arriving above cost no relayout of the rest. */
  .log > agent-chat-message {
    content-visibility: auto;
    contain-intrinsic-size: auto 80px;
  }
  .start {
    padding: 8px 4px;
    color: var(--agent-chat-color-text);
  }
  .greeting {
    margin: 0 0 12px;
    font-size: 1.05em;
  }
  .prompts {
    display: flex;
    flex-direction: column;
    align-items: flex-start;
    gap: 8px;
    margin: 0;
    padding: 0;
    list-style: none;
  }
  .prompts button {
    text-align: start;
    border: 1px solid var(--agent-chat-color-border);
    background: var(--agent-chat-color-surface);
    border-radius: 999px;
    padding: 6px 12px;
    cursor: pointer;
  }
  .prompts button:hover {
    border-color: var(--agent-chat-color-accent);
  }
  .jump {
    position: absolute;
    bottom: 8px;
    left: 50%;
    transform: translateX(-50%);
    border: 1px solid var(--agent-chat-color-border);
    background: var(--agent-chat-color-surface);
    color: var(--agent-chat-color-text);
    border-radius: 999px;
    padding: 4px 12px;
    box-shadow: 0 2px 8px rgb(0 0 0 / 0.15);
    cursor: pointer;
  }
`;
