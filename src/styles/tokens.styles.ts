import { css } from 'lit';

/** The dark token set, used by theme="dark" and by theme="auto" on a dark system. */
const darkTokens = css`
  --agent-chat-color-accent: #8ab4ff;
  --agent-chat-color-on-accent: #0b1220;
  --agent-chat-color-surface: #1b1d21;
  --agent-chat-color-surface-raised: #272a30;
  --agent-chat-color-text: #e6e8eb;
  --agent-chat-color-text-muted: #a8b0ba;
  --agent-chat-color-border: #3d434c;
  --agent-chat-color-danger: #ff8f85;
  --agent-chat-color-focus: #8ab4ff;
  --agent-chat-color-code-background: #111316;
  --agent-chat-shadow: 0 12px 40px rgb(0 0 0 / 0.5);
  color-scheme: dark;
`;

/**
 * Default values of the public design tokens; declared on the root only, so page CSS aimed at
 * `agent-chat { … }` overrides them. Every pair of text/background colours meets WCAG AA
 * (4.5:1) in both themes.
 */
export default css`
  :host {
    --agent-chat-font-family: system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif;
    --agent-chat-font-size: 15px;
    --agent-chat-radius: 12px;
    --agent-chat-space: 12px;
    --agent-chat-panel-width: 400px;
    --agent-chat-panel-height: 640px;
    --agent-chat-z-index: 2147483000;

    --agent-chat-color-accent: #1d4ed8;
    --agent-chat-color-on-accent: #ffffff;
    --agent-chat-color-surface: #ffffff;
    --agent-chat-color-surface-raised: #f3f4f6;
    --agent-chat-color-text: #1f2328;
    --agent-chat-color-text-muted: #57606a;
    --agent-chat-color-border: #d0d7de;
    --agent-chat-color-danger: #b42318;
    --agent-chat-color-focus: #1d4ed8;
    --agent-chat-color-code-background: #f6f8fa;
    --agent-chat-shadow: 0 12px 40px rgb(0 0 0 / 0.18);
    color-scheme: light;
  }

  :host([theme='dark']) {
    ${darkTokens}
  }

  @media (prefers-color-scheme: dark) {
    :host([theme='auto']) {
      ${darkTokens}
    }
  }
`;
