import { css } from 'lit';

/**
 * The console's look: the widget's palette (light and dark by the system setting), system
 * type, 8 px steps. Shared by every page through Lit's constructed stylesheets (no inline
 * style anywhere: the pages run under a CSP without 'unsafe-inline').
 */
export const tokens = css`
  :host {
    --c-accent: #1d4ed8; --c-on-accent: #fff; --c-bg: #f6f7f9; --c-surface: #fff; --c-raised: #f0f2f5;
    --c-text: #1f2328; --c-muted: #57606a; --c-border: #d0d7de; --c-danger: #b42318; --c-danger-bg: #fdecea;
    --c-warn: #8a5a00; --c-warn-bg: #fff5d6; --c-ok: #116329; --c-ok-bg: #e6f4ea; --c-focus: #1d4ed8;
    --c-code: #f6f8fa; --shadow: 0 1px 2px rgb(0 0 0 / 0.06), 0 4px 16px rgb(0 0 0 / 0.06);
    --series-1: #1d4ed8; --series-2: #0e7c66; --series-3: #b35c00; --series-up: #116329; --series-down: #b42318;
    --radius: 10px; --scroll-shadow: rgb(0 0 0 / 0.16);
    color-scheme: light; accent-color: var(--c-accent);
    font: 14px/1.5 system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif;
    color: var(--c-text);
  }
  @media (prefers-color-scheme: dark) {
    :host {
      --c-accent: #8ab4ff; --c-on-accent: #0b1220; --c-bg: #121417; --c-surface: #1b1d21; --c-raised: #272a30;
      --c-text: #e6e8eb; --c-muted: #a8b0ba; --c-border: #3d434c; --c-danger: #ff8f85; --c-danger-bg: #3a1d1b;
      --c-warn: #ffd37a; --c-warn-bg: #3a2f12; --c-ok: #7ee2a0; --c-ok-bg: #17321f; --c-focus: #8ab4ff;
      --c-code: #111316; --shadow: 0 1px 2px rgb(0 0 0 / 0.4), 0 4px 16px rgb(0 0 0 / 0.3);
      --series-1: #8ab4ff; --series-2: #5fd4b8; --series-3: #ffb366; --series-up: #7ee2a0; --series-down: #ff8f85;
      --scroll-shadow: rgb(0 0 0 / 0.6);
      color-scheme: dark;
    }
  }
`;

export const base = css`
  *, *::before, *::after { box-sizing: border-box; }
  h1, h2, h3, p { margin: 0; }
  h1 { font-size: 20px; font-weight: 650; }
  h2 { font-size: 16px; font-weight: 620; }
  h3 { font-size: 14px; font-weight: 620; }
  a { color: var(--c-accent); }
  :focus-visible { outline: 2px solid var(--c-focus); outline-offset: 2px; }
  .muted { color: var(--c-muted); }
  .stack { display: grid; grid-template-columns: minmax(0, 1fr); gap: 16px; }
  .row { display: flex; flex-wrap: wrap; gap: 8px; align-items: center; }
  .spacer { flex: 1; }
  .card { background: var(--c-surface); border: 1px solid var(--c-border); border-radius: var(--radius); padding: 16px; box-shadow: var(--shadow); }
  .page-head { display: flex; flex-wrap: wrap; gap: 12px; align-items: end; justify-content: space-between; }
  button, .button {
    font: inherit; font-weight: 550; display: inline-flex; align-items: center; justify-content: center; gap: 6px; min-height: 36px;
    padding: 0 14px; border-radius: 8px; border: 1px solid var(--c-border); background: var(--c-surface); color: var(--c-text);
    cursor: pointer; text-decoration: none; white-space: nowrap;
  }
  button:hover, .button:hover { background: var(--c-raised); }
  button.primary { background: var(--c-accent); border-color: var(--c-accent); color: var(--c-on-accent); }
  button.primary:hover { filter: brightness(1.08); }
  button.danger { color: var(--c-danger); }
  button.danger.solid { background: var(--c-danger); border-color: var(--c-danger); color: var(--c-surface); }
  button.small { min-height: 30px; padding: 0 10px; font-size: 13px; }
  button:disabled { opacity: 0.55; cursor: not-allowed; }
  label { display: grid; gap: 4px; font-weight: 550; }
  label .hint { font-weight: 400; color: var(--c-muted); font-size: 13px; }
  /* A field inside its label would take the label's weight: what is typed reads as text, not as a name. */
  input, select, textarea {
    font: inherit; font-weight: 400; color: var(--c-text); background: var(--c-surface); border: 1px solid var(--c-border); border-radius: 8px;
    min-height: 36px; padding: 6px 10px; min-width: 0;
  }
  /* A checkbox is not a field: one size everywhere, not a field's 36 px height (it made a filter
     chip 44 px tall), never squeezed by the words beside it (the file kinds at 390 px). */
  input[type='checkbox'] { min-height: 0; width: 18px; height: 18px; margin: 0; flex: none; }
  textarea { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 13px; resize: vertical; }
  /* A date field takes the keyboard in its segments (month, day, year), inside the browser's own
     shadow tree: once Tab moves to the next one Chromium's field matches neither :focus nor
     :focus-visible, only :focus-within. A click there focuses a segment to type in, as in a text
     field, so the ring shows then too. */
  input:focus-visible, select:focus-visible, textarea:focus-visible, input[type='date']:focus-within { outline: 2px solid var(--c-focus); outline-offset: 0; border-color: transparent; }
  table { width: 100%; border-collapse: collapse; }
  /* Middle: a row's words line up with its buttons and fields (API keys, file kinds). */
  th, td { text-align: start; padding: 8px 10px; border-bottom: 1px solid var(--c-border); vertical-align: middle; }
  th { font-weight: 600; }
  thead th { color: var(--c-muted); font-size: 12px; text-transform: uppercase; letter-spacing: 0.03em; }
  td.num, th.num { text-align: end; font-variant-numeric: tabular-nums; }
  .table-wrap { overflow-x: auto; --scroll-bg: var(--c-surface); }
  code, pre { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 12.5px; }
  pre { border: 1px solid var(--c-border); border-radius: 8px; padding: 12px; overflow-x: auto; margin: 0; white-space: pre; --scroll-bg: var(--c-code); }
  /* What scrolls sideways shows it: a shadow at each edge with more beyond (covers that move
     with the content hide the shadow at an end reached). */
  pre, .table-wrap {
    background:
      linear-gradient(to right, var(--scroll-bg) 30%, transparent) left center / 32px 100% no-repeat local,
      linear-gradient(to left, var(--scroll-bg) 30%, transparent) right center / 32px 100% no-repeat local,
      radial-gradient(farthest-side at 0 50%, var(--scroll-shadow), transparent) left center / 12px 100% no-repeat scroll,
      radial-gradient(farthest-side at 100% 50%, var(--scroll-shadow), transparent) right center / 12px 100% no-repeat scroll,
      var(--scroll-bg);
  }
  /* On a phone a table of records becomes a list of cards: each row a block, each cell under
     its column's name (data-label), so every value and action is on screen without scrolling.
     The header row stays for screen readers; the cells keep their table roles. */
  @media (max-width: 640px) {
    table.records, table.records tbody { display: block; }
    table.records thead { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); white-space: nowrap; }
    table.records tr { display: grid; grid-template-columns: minmax(0, 1fr) auto; gap: 6px 12px; padding: 12px 0; border-bottom: 1px solid var(--c-border); }
    table.records tbody tr:first-child { padding-top: 0; }
    table.records tr:last-child { border-bottom: 0; padding-bottom: 0; }
    table.records td, table.records th { display: block; padding: 0; border: 0; grid-column: 1 / -1; min-width: 0; text-align: start; }
    table.records [data-label] { display: flex; gap: 12px; justify-content: space-between; align-items: baseline; }
    table.records [data-label]::before { content: attr(data-label) / ''; color: var(--c-muted); font-size: 13px; font-weight: 500; flex: none; }
  }
  .notice { border-radius: 8px; padding: 10px 12px; border: 1px solid transparent; }
  .notice.warn { background: var(--c-warn-bg); color: var(--c-warn); border-color: color-mix(in srgb, var(--c-warn) 30%, transparent); }
  .notice.error { background: var(--c-danger-bg); color: var(--c-danger); border-color: color-mix(in srgb, var(--c-danger) 30%, transparent); }
  .notice.read-only { background: var(--c-raised); border-color: var(--c-border); }
  /* A form a viewer reads: its fields shown as they are, its box not drawn twice. */
  fieldset.plain { border: 0; margin: 0; padding: 0; min-width: 0; display: grid; gap: inherit; }
  .notice.ok { background: var(--c-ok-bg); color: var(--c-ok); border-color: color-mix(in srgb, var(--c-ok) 30%, transparent); }
  .pill { display: inline-block; border-radius: 999px; padding: 1px 8px; font-size: 12px; font-weight: 600; background: var(--c-raised); color: var(--c-muted); }
  .pill.ok { background: var(--c-ok-bg); color: var(--c-ok); }
  .pill.warn { background: var(--c-warn-bg); color: var(--c-warn); }
  .pill.bad { background: var(--c-danger-bg); color: var(--c-danger); }
  .visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); white-space: nowrap; }
  dialog { border: 1px solid var(--c-border); border-radius: var(--radius); background: var(--c-surface); color: var(--c-text); padding: 20px; max-width: min(480px, 92vw); box-shadow: var(--shadow); }
  dialog::backdrop { background: rgb(0 0 0 / 0.45); }
  @media (prefers-reduced-motion: no-preference) { button, .button { transition: background-color 120ms; } }
  /* Forced colours drop backgrounds, which alone marked what is pressed or selected: the system's
     highlight marks it instead (decision 482). */
  @media (forced-colors: active) {
    [aria-pressed='true'], .list a[aria-current='true'] { forced-color-adjust: none; background: Highlight; color: HighlightText; }
  }
`;
