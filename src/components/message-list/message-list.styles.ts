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
    /* The scroll-anchor controller decides where the view stays. The browser's own anchoring
       moved scrollTop when an answer's steps folded up above its text, and that scroll read as
       the reader leaving the bottom. */
    overflow-anchor: none;
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
  .log {
    gap: 20px;
  }
  /* The start screen sits low, near the composer, where the eye already is. */
  .scroller-content {
    min-height: 100%;
    display: flex;
    flex-direction: column;
  }
  .start {
    flex: 1;
    display: flex;
    flex-direction: column;
    justify-content: flex-end;
    padding: 24px 4px 8px;
    color: var(--agent-chat-color-text);
  }
  .greeting {
    margin: 0;
    font-size: 1.5em;
    font-weight: 650;
    line-height: 1.25;
  }
  .subheading {
    margin: 6px 0 0;
    color: var(--agent-chat-color-text-muted);
  }
  .prompts {
    display: grid;
    gap: 8px;
    margin: 20px 0 0;
    padding: 0;
    list-style: none;
  }
  .prompts button {
    width: 100%;
    min-height: 44px;
    text-align: start;
    border: 1px solid var(--agent-chat-color-border);
    background: var(--agent-chat-color-surface);
    border-radius: 12px;
    padding: 10px 14px;
    cursor: pointer;
    line-height: 1.35;
  }
  .prompts button:hover {
    border-color: var(--agent-chat-color-accent);
    background: var(--agent-chat-color-surface-raised);
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
