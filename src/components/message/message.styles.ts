import { css } from 'lit';

export default css`
  :host {
    display: block;
  }
  .bubble {
    max-width: var(--agent-chat-message-max-width, 88%);
    padding: 8px 12px;
    border-radius: var(--agent-chat-radius);
    line-height: 1.5;
    overflow-wrap: anywhere;
  }
  .user {
    display: flex;
    flex-direction: column;
    align-items: flex-end;
  }
  .user .bubble {
    background: var(--agent-chat-color-accent);
    color: var(--agent-chat-color-on-accent);
    white-space: pre-wrap;
  }
  .assistant .bubble {
    background: var(--agent-chat-color-surface-raised);
    color: var(--agent-chat-color-text);
  }
  .content > :first-child, .content > .group:first-child > :first-child { margin-top: 0; }
  .content > :last-child, .content > .group:last-child > :last-child { margin-bottom: 0; }
  /* Settled parts of a long answer that are scrolled away skip layout and paint entirely. */
  .group {
    content-visibility: auto;
    contain-intrinsic-size: auto 400px;
  }
  .content p, .content ul, .content ol, .content blockquote, .content .table-wrap { margin: 0 0 0.6em; }
  .content h3 { margin: 0.8em 0 0.4em; line-height: 1.3; font-size: 1em; }
  .content .h1 { font-size: 1.25em; }
  .content .h2 { font-size: 1.12em; }
  .content ul, .content ol { padding-inline-start: 1.4em; }
  .content a { color: inherit; text-decoration: underline; }
  .content code {
    font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;
    font-size: 0.9em;
    background: var(--agent-chat-color-code-background);
    border-radius: 4px;
    padding: 0.1em 0.3em;
  }
  .content .code-block {
    margin: 0 0 0.6em;
    border-radius: 8px;
    background: var(--agent-chat-color-code-background);
    border: 1px solid var(--agent-chat-color-border);
  }
  .content .code-bar {
    display: flex;
    align-items: center;
    justify-content: space-between;
    gap: 8px;
    padding: 2px 4px 2px 10px;
    font-size: 0.8em;
    color: var(--agent-chat-color-text-muted);
    border-bottom: 1px solid var(--agent-chat-color-border);
  }
  .content .copy {
    font: inherit;
    color: var(--agent-chat-color-text);
    background: none;
    border: 1px solid transparent;
    border-radius: 4px;
    padding: 2px 6px;
    cursor: pointer;
  }
  .content .copy:hover { border-color: var(--agent-chat-color-border); }
  .content .copy:focus-visible, .content pre:focus-visible, .content .table-wrap:focus-visible {
    outline: 2px solid var(--agent-chat-color-accent);
    outline-offset: 1px;
  }
  /* Code keeps its lines: wide code scrolls instead of wrapping or breaking words. */
  .content pre {
    margin: 0;
    padding: 8px 10px;
    overflow-x: auto;
    white-space: pre;
    overflow-wrap: normal;
  }
  .content pre code { padding: 0; background: none; border-radius: 0; font-size: 0.85em; }
  .content input[type='checkbox'] { margin: 0 0.3em 0 0; vertical-align: middle; }
  .content li:has(> input[type='checkbox']), .content li:has(> p > input[type='checkbox']) { list-style: none; margin-inline-start: -1.2em; }
  .content .raw { white-space: pre-wrap; }
  .overflow-notice { font-size: 0.85em; color: var(--agent-chat-color-text-muted); font-style: italic; }
  .plain { white-space: pre-wrap; }
  .content blockquote {
    border-inline-start: 3px solid var(--agent-chat-color-border);
    padding-inline-start: 10px;
    color: var(--agent-chat-color-text-muted);
  }
  .content .table-wrap { overflow-x: auto; }
  /* Cells wrap between words only: a wide table scrolls rather than splitting words. */
  .content th, .content td { overflow-wrap: normal; word-break: normal; }
  .content table { border-collapse: collapse; font-size: 0.95em; }
  .content th, .content td { border: 1px solid var(--agent-chat-color-border); padding: 4px 8px; text-align: start; }
  .content [align='center'] { text-align: center; }
  .content [align='right'] { text-align: end; }
  .sources { margin: 6px 0 0; padding: 0; list-style: none; display: flex; flex-wrap: wrap; gap: 6px; font-size: 0.85em; }
  .sources a {
    display: inline-block;
    padding: 2px 8px;
    border: 1px solid var(--agent-chat-color-border);
    border-radius: 999px;
    color: var(--agent-chat-color-text);
    text-decoration: none;
  }
  .meta { display: flex; align-items: center; gap: 8px; margin-top: 4px; font-size: 0.85em; color: var(--agent-chat-color-text-muted); }
  .error { color: var(--agent-chat-color-danger); margin: 0; }
  .retry {
    border: 1px solid currentColor;
    background: none;
    border-radius: 6px;
    padding: 2px 8px;
    cursor: pointer;
    color: var(--agent-chat-color-text);
  }
  .typing { display: inline-block; width: 2.5em; }
  @media (prefers-reduced-motion: no-preference) {
    .typing::after { content: '…'; animation: pulse 1s infinite; }
  }
  @keyframes pulse { 50% { opacity: 0.3; } }
`;
