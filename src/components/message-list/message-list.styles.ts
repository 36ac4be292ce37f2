import { css } from 'lit';
import { SHORT_PANEL } from '../../styles/short-panel.js';

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
    /* The offsets of the question held at the top of the view are measured from here. */
    position: relative;
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
  .log > agent-chat-message, .block > agent-chat-message {
    content-visibility: auto;
    contain-intrinsic-size: auto 80px;
  }
  .log {
    gap: 20px;
  }
  /* Blocks of messages lay out on their own: a growing answer at the end re-lays its block, not
     a 1,000-message thread, and a block out of view skips style and layout altogether. */
  .block {
    display: flex;
    flex-direction: column;
    gap: 20px;
    contain: layout style;
    content-visibility: auto;
    contain-intrinsic-size: auto 2000px;
  }
  .scroller-content {
    min-height: 100%;
    display: flex;
    flex-direction: column;
  }
  /* The start screen fills the panel: the greeting's band grows into whatever room the prompts
     and recent conversations leave, so no panel size shows a mostly blank screen. */
  .start {
    flex: 1;
    display: flex;
    flex-direction: column;
    gap: 12px;
    color: var(--agent-chat-color-text);
  }
  .hero {
    flex: 1 0 auto;
    min-height: 104px;
    display: flex;
    flex-direction: column;
    gap: 6px;
    padding: 16px 18px;
    border-radius: var(--agent-chat-radius);
    background: linear-gradient(170deg, color-mix(in srgb, var(--agent-chat-color-accent) 18%, var(--agent-chat-color-surface)),
      color-mix(in srgb, var(--agent-chat-color-accent) 5%, var(--agent-chat-color-surface)));
  }
  /* The brand heads the band and the greeting closes it, as a tall band has room between. */
  .brand {
    width: 36px;
    height: 36px;
    margin-bottom: auto;
    border-radius: 50%;
    object-fit: cover;
  }
  .mark {
    display: grid;
    place-items: center;
    background: var(--agent-chat-color-accent);
    color: var(--agent-chat-color-on-accent);
  }
  .greeting {
    margin: 10px 0 0;
    font-size: 1.4em;
    font-weight: 650;
    line-height: 1.25;
    /* A long greeting stops at two lines; the whole of it is the tooltip and what is read out. */
    display: -webkit-box;
    -webkit-box-orient: vertical;
    -webkit-line-clamp: 2;
    overflow: hidden;
    overflow-wrap: anywhere;
  }
  .subheading {
    margin: 0;
    color: var(--agent-chat-color-text-muted);
  }
  /* Nothing but the greeting (no prompts, no recent conversations): a band would frame emptiness.
     The greeting is one compact line beside a small brand, just above the composer where the
     visitor looks next, and the rest of the panel stays the surface's own colour. */
  .start.compact {
    justify-content: flex-end;
  }
  .compact .hero {
    flex: none;
    min-height: 0;
    display: grid;
    grid-template-columns: auto minmax(0, 1fr);
    align-items: center;
    column-gap: 10px;
    row-gap: 0;
    padding: 0 2px;
    border-radius: 0;
    background: none;
  }
  .compact .hero:has(.subheading) .brand {
    grid-row: 1 / span 2;
  }
  .compact .brand {
    width: 28px;
    height: 28px;
    margin: 0;
  }
  .compact .mark svg {
    width: 16px;
    height: 16px;
  }
  .compact .greeting {
    margin: 0;
    font-size: 1.05em;
    font-weight: 600;
  }
  .compact .subheading {
    grid-column: 2;
    font-size: 0.9em;
  }
  .section {
    display: grid;
    gap: 8px;
  }
  .caption {
    margin: 0 4px;
    font-size: 0.8em;
    font-weight: 600;
    color: var(--agent-chat-color-text-muted);
  }
  .prompts,
  .latest {
    display: grid;
    gap: 8px;
    margin: 0;
    padding: 0;
    list-style: none;
  }
  .prompts button,
  .latest button {
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
  .prompts button:hover,
  .latest button:hover {
    border-color: var(--agent-chat-color-accent);
    background: var(--agent-chat-color-surface-raised);
  }
  .latest button {
    display: grid;
    gap: 0;
    padding: 7px 14px;
  }
  .latest-title,
  .latest-meta {
    text-align: match-parent; text-align: -webkit-match-parent;
    overflow: hidden;
    white-space: nowrap;
    text-overflow: ellipsis;
  }
  .latest-meta {
    font-size: 0.85em;
    color: var(--agent-chat-color-text-muted);
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
  /* A short panel (decision 810): a line of the conversation more in view instead of padding. */
  @container ${SHORT_PANEL} {
    .scroller { padding-block: 8px; }
  }
`;
