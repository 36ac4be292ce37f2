import { css } from 'lit';

export default css`
  :host {
    display: block;
  }
  @media (prefers-reduced-motion: no-preference) {
    :host { animation: enter 180ms ease-out; }
  }
  /* Movement only, no fade: a half-transparent message would fail a contrast check mid-way. */
  @keyframes enter { from { transform: translateY(6px); } }
  /* The visitor's turns are bubbles; answers use the full width, like a document. */
  .bubble {
    max-width: var(--agent-chat-message-max-width);
    padding: 8px 14px;
    border-radius: 18px 18px 4px 18px;
    line-height: 1.5;
    overflow-wrap: anywhere;
  }
  .user {
    display: flex;
    flex-direction: column;
    align-items: flex-end;
  }
  /* A question's files before the attachment view has loaded: their names. */
  .file-names {
    margin: 0 0 6px;
    padding-inline-start: 1.2em;
    font-size: 0.85em;
    color: var(--agent-chat-color-text-muted);
  }
  .user .bubble {
    background: var(--agent-chat-color-accent);
    color: var(--agent-chat-color-on-accent);
    white-space: pre-wrap;
  }
  /* The tail is on the side the bubble stands on: the left, right to left. The panel's direction,
     not the bubble's own (dir="auto": an English question in an Arabic panel reads ltr). */
  .user:dir(rtl) .bubble { border-radius: 18px 18px 18px 4px; }
  .body {
    color: var(--agent-chat-color-text);
    line-height: 1.6;
    overflow-wrap: break-word;
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
  /* A settled group contains its paint: a number wider than the inset lost its first digit. */
  .content ol { padding-inline-start: 2.6em; }
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
  .content .code-lang { margin-inline-end: auto; }
  .content .copy, .content .wrap {
    font: inherit;
    color: var(--agent-chat-color-text);
    background: none;
    border: 1px solid transparent;
    border-radius: 4px;
    padding: 2px 6px;
    cursor: pointer;
  }
  .content .copy:hover, .content .wrap:hover { border-color: var(--agent-chat-color-border); }
  .content .wrap[aria-pressed='true'] { border-color: var(--agent-chat-color-border); background: var(--agent-chat-color-surface); }
  /* Copy code says "Copied" on the button itself for a moment (the status line announces it too). */
  .copy:not([data-copied]) .copied, .copy[data-copied] .copy-label { display: none; }
  .content .copy:focus-visible, .content .wrap:focus-visible, .content pre:focus-visible, .content .table-wrap:focus-visible {
    outline: 2px solid var(--agent-chat-color-focus);
    outline-offset: 1px;
  }
  /* Code reads left to right in every language, and keeps its lines: wide code scrolls
     instead of wrapping or breaking words. */
  .content pre, .content code { direction: ltr; unicode-bidi: isolate; }
  .content pre {
    text-align: left;
    margin: 0;
    padding: 8px 10px;
    overflow-x: auto;
    white-space: pre;
    overflow-wrap: normal;
    /* Lines cut at an edge show it: a shadow on each side that has more code, in every
       scrollbar style (overlay scrollbars show nothing at rest). Code is left to right in every
       language, so the edges are the code's own. The covers scroll with the code (local) and
       hide the shadows (fixed to the box) at an end it has reached. */
    --fade: color-mix(in srgb, var(--agent-chat-color-text) 32%, transparent);
    background:
      linear-gradient(to right, var(--agent-chat-color-code-background) 50%, transparent) left / 28px 100% no-repeat local,
      linear-gradient(to left, var(--agent-chat-color-code-background) 50%, transparent) right / 28px 100% no-repeat local,
      radial-gradient(farthest-side at 0 50%, var(--fade), transparent) left / 14px 100% no-repeat scroll,
      radial-gradient(farthest-side at 100% 50%, var(--fade), transparent) right / 14px 100% no-repeat scroll;
  }
  .code-block[data-wrap] pre { white-space: pre-wrap; overflow-wrap: anywhere; }
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
  .caption { margin: 0 0 4px; font-size: 0.8em; font-weight: 600; color: var(--agent-chat-color-text-muted); }
  .sources { margin-top: 10px; }
  .sources ol { margin: 0; padding: 0; list-style: none; display: grid; grid-template-columns: minmax(0, 1fr); gap: 4px; font-size: 0.875em; }
  .sources a {
    display: flex;
    align-items: baseline;
    gap: 8px;
    padding: 6px 8px;
    border: 1px solid var(--agent-chat-color-border);
    border-radius: 8px;
    color: var(--agent-chat-color-text);
    text-decoration: none;
  }
  .sources a:hover { background: var(--agent-chat-color-surface-raised); }
  .number {
    flex: none;
    min-width: 1.5em;
    border-radius: 4px;
    text-align: center;
    font-size: 0.85em;
    background: var(--agent-chat-color-surface-raised);
  }
  /* A source's title, its section and its domain wrap, never cut: at 320 px or 400 % zoom a cut
     title could be read only by a screen reader (WCAG 1.4.10). */
  .sources .title { flex: 1; min-width: 0; text-align: match-parent; text-align: -webkit-match-parent; overflow-wrap: anywhere; }
  /* A source's section (§4, version 4): a line of its own under the title. */
  .section { display: block; color: var(--agent-chat-color-text-muted); font-size: 0.9em; }
  .domain { flex: none; max-width: 45%; overflow-wrap: anywhere; color: var(--agent-chat-color-text-muted); font-size: 0.9em; }
  .meta { display: flex; flex-wrap: wrap; align-items: center; gap: 4px 10px; margin-top: 4px; font-size: 0.85em; color: var(--agent-chat-color-text-muted); }
  .user .meta { justify-content: flex-end; text-align: end; }
  .error { color: var(--agent-chat-color-danger); margin: 0; }
  .retry, .reasons button, .chip {
    border: 1px solid var(--agent-chat-color-border);
    background: var(--agent-chat-color-surface);
    border-radius: 999px;
    padding: 4px 12px;
    cursor: pointer;
    color: var(--agent-chat-color-text);
  }
  .actions { display: flex; align-items: center; gap: 2px; margin-top: 6px; margin-inline-start: -6px; }
  /* The latest answer keeps its actions in view; older ones show them on hover or focus, so a
     long conversation is not striped with icons. Touch has no hover: there they stay. */
  @media (hover: hover) and (pointer: fine) {
    .assistant:not(.latest):not(:hover):not(:focus-within) .actions { opacity: 0; }
  }
  @media (prefers-reduced-motion: no-preference) {
    .actions { transition: opacity 120ms ease-out; }
  }
  .thanks { margin-inline-start: 6px; font-size: 0.85em; color: var(--agent-chat-color-text-muted); }
  .action {
    display: grid;
    place-items: center;
    width: 32px;
    height: 32px;
    border: 0;
    border-radius: 8px;
    background: none;
    color: var(--agent-chat-color-text-muted);
    cursor: pointer;
  }
  .action svg { width: 18px; height: 18px; }
  .action:hover { background: var(--agent-chat-color-surface-raised); color: var(--agent-chat-color-text); }
  .action[aria-pressed='true'] { color: var(--agent-chat-color-accent); }
  /* A vote not given is a line drawing, as copy and regenerate beside it are; the given one fills. */
  .action[aria-pressed='false'] svg { fill: none; stroke: currentColor; stroke-width: 2; }
  .reasons {
    display: grid;
    gap: 10px;
    margin-top: 6px;
    padding: 12px;
    border: 1px solid var(--agent-chat-color-border);
    border-radius: 12px;
    background: var(--agent-chat-color-surface-raised);
    font-size: 0.9em;
  }
  .reasons .caption { margin: 0; font-size: 1em; color: var(--agent-chat-color-text); }
  .chips, .form-actions { display: flex; flex-wrap: wrap; gap: 6px; }
  /* A reason is a chip, as ChatGPT's: its checkbox stays, unseen, for the keyboard and a screen
     reader; the chip draws its state, a check mark beside the words (not colour alone), and its ring. */
  .chip { position: relative; display: inline-flex; align-items: center; gap: 4px; }
  .chip input { position: absolute; opacity: 0; width: 1px; height: 1px; margin: 0; }
  .chip svg { display: none; width: 16px; height: 16px; margin-inline-start: -4px; }
  .chip:has(:checked) { border-color: var(--agent-chat-color-accent); background: color-mix(in srgb, var(--agent-chat-color-accent) 12%, var(--agent-chat-color-surface)); }
  .chip:has(:checked) svg { display: block; }
  .chip:has(:focus-visible) { outline: 2px solid var(--agent-chat-color-focus); outline-offset: 2px; }
  .reasons textarea { font: inherit; color: inherit; background: var(--agent-chat-color-surface); border: 1px solid color-mix(in srgb, var(--agent-chat-color-text-muted) 65%, var(--agent-chat-color-border)); border-radius: 8px; padding: 6px 8px; resize: vertical; }
  .reasons .primary { background: var(--agent-chat-color-accent); color: var(--agent-chat-color-on-accent); border-color: transparent; }
  /* Three dots while the answer has no words yet. */
  .typing { display: inline-flex; gap: 4px; padding: 6px 0; }
  .typing > span:not(.visually-hidden) { width: 7px; height: 7px; border-radius: 50%; background: var(--agent-chat-color-text-muted); opacity: 0.5; }
  @media (prefers-reduced-motion: no-preference) {
    .typing > span:not(.visually-hidden) { animation: dot 1.2s infinite ease-in-out; }
    .typing > span:nth-child(2) { animation-delay: 0.15s; }
    .typing > span:nth-child(3) { animation-delay: 0.3s; }
  }
  @keyframes dot { 30% { opacity: 1; transform: translateY(-3px); } }
  @media (pointer: coarse) {
    .action { width: 44px; height: 44px; }
    .retry, .reasons button, .chip { min-height: 44px; }
  }
  /* Forced colours drop the bubble's background and a vote's colour: an edge and the system's
     highlight show them (decision 483). Last, to win over the rules of the same weight above. */
  @media (forced-colors: active) {
    .user .bubble { border: 1px solid; }
    .action[aria-pressed='true'], .chip:has(:checked) { color: Highlight; }
    .chip:has(:checked) { border-color: Highlight; }
  }
`;
