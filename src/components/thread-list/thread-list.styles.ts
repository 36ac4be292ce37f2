import { css } from 'lit';

export default css`
  :host {
    display: flex;
    flex-direction: column;
    min-height: 0;
    background: var(--agent-chat-sidebar-background, var(--agent-chat-color-surface));
    border-inline-end: 1px solid var(--agent-chat-color-border);
  }
  .scroller {
    flex: 1;
    min-height: 0;
    overflow-y: auto;
    padding: 8px 6px;
    overscroll-behavior: contain;
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
    text-align: match-parent; text-align: -webkit-match-parent;
    overflow: hidden;
    white-space: nowrap;
    text-overflow: ellipsis;
  }
  .time,
  .preview {
    max-width: 100%;
    font-size: 0.8em;
    color: var(--agent-chat-color-text-muted);
    overflow: hidden;
    white-space: nowrap;
    text-overflow: ellipsis;
  }
  .group {
    margin: 12px 8px 4px;
    font-size: 0.75em;
    font-weight: 600;
    color: var(--agent-chat-color-text-muted);
  }
  .group:first-child {
    margin-top: 4px;
  }
  .row-action,
  .confirm button,
  .state button {
    border: 1px solid var(--agent-chat-color-border);
    background: var(--agent-chat-color-surface);
    color: var(--agent-chat-color-text);
    /* Pills, as the conversation's Retry and the feedback form's buttons are. */
    border-radius: 999px;
    padding: 4px 12px;
    cursor: pointer;
  }
  .row-action {
    display: grid;
    place-items: center;
    width: 32px;
    height: 32px;
    padding: 0;
    border-radius: 8px;
    border-color: transparent;
    background: none;
    color: var(--agent-chat-color-text-muted);
  }
  .row-action svg { width: 18px; height: 18px; }
  /* With a mouse a row's actions show on hover or focus; touch has no hover, so they stay.
     Hidden, they keep their place (a pointer reaches them) but the title runs under them, so a
     row at rest is not cut short beside empty space. */
  @media (hover: hover) {
    li:not(:hover):not(:focus-within) .row-action { opacity: 0; }
    li:not(:hover):not(:focus-within) .open { margin-inline-end: -64px; }
  }
  @media (pointer: coarse) {
    .open, .row-action, .confirm button, .state button { min-height: 44px; }
    .row-action { width: 44px; }
  }
  .open:hover { background: var(--agent-chat-color-surface-raised); }
  /* The scroller takes focus only so the list has somewhere to put it when it covers the conversation; it is not a control. */
  .scroller:focus { outline: none; }
  .skeleton { display: grid; gap: 6px; padding: 8px 2px 10px; }
  .skeleton span { display: block; height: 10px; border-radius: 5px; background: var(--agent-chat-color-surface-raised); }
  .skeleton span + span { width: 40%; }
  @media (prefers-reduced-motion: no-preference) {
    .skeleton span { animation: shimmer 1.2s ease-in-out infinite alternate; }
  }
  @keyframes shimmer { to { opacity: 0.45; } }
  .confirm {
    flex: 1;
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
  .refused {
    margin: 0;
    padding: 4px var(--agent-chat-space);
    color: var(--agent-chat-color-danger);
    font-size: 0.9em;
  }
  .state {
    padding: 8px var(--agent-chat-space);
    color: var(--agent-chat-color-text-muted);
    font-size: 0.9em;
  }
  /* Focused from code (decisions 500, 515): the ring rounds as a control's does, and keeps off the
     words (decision 729): padding inside, the same margin taken back, so the words do not move. */
  .state p {
    margin: -4px -6px 2px;
    padding: 4px 6px;
  }
  .state, .state p { border-radius: 6px; }
  /* A failure reads as the conversation's failed message and the list's refusal line do. */
  [role='alert'] p { color: var(--agent-chat-color-danger); }
  /* The search (thread-search.ts): its field leaves room for "Clear search", which stands in for the browser's own. */
  .search-box { position: relative; margin: 4px 6px; }
  .search-box .search { width: 100%; margin: 0; padding-inline-end: 36px; }
  .search::-webkit-search-cancel-button { -webkit-appearance: none; appearance: none; }
  .clear-search {
    position: absolute; inset-block: 0; inset-inline-end: 2px; display: grid; place-items: center;
    width: 32px; padding: 0; border: 0; border-radius: var(--agent-chat-radius); background: none;
    color: var(--agent-chat-color-text-muted); cursor: pointer;
  }
  .clear-search svg { width: 16px; height: 16px; }
  .clear-search:focus-visible { outline: 2px solid var(--agent-chat-color-focus); outline-offset: -2px; }
  @media (pointer: coarse) { .clear-search { width: 44px; } .search-box .search { padding-inline-end: 48px; } }
  .search-outcome p { margin: 0 0 6px; padding: 8px var(--agent-chat-space) 0; color: var(--agent-chat-color-text-muted); font-size: 0.9em; }
`;
