import { css, unsafeCSS } from 'lit';
import { tokenDeclarations } from './token-table.js';

/** Declarations from the one token table: the light set, or the dark overrides. */
const declare = (dark: boolean) => unsafeCSS(tokenDeclarations(dark));

/**
 * Default values of the public design tokens; declared on the root only, so page CSS aimed at
 * `agent-chat { … }` overrides them. Every pair of text/background colours meets WCAG AA
 * (4.5:1) in both themes. The values are a build-time constant (token-table.ts), not input.
 */
export default css`
  :host {
    ${declare(false)}
    color-scheme: light;
  }

  :host([theme='dark']) {
    ${declare(true)}
    color-scheme: dark;
  }

  @media (prefers-color-scheme: dark) {
    :host([theme='auto']) {
      ${declare(true)}
      color-scheme: dark;
    }
  }
`;
