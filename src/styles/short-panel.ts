import { unsafeCSS } from 'lit';

/**
 * The container query of a short floating panel: a phone on its side with the on-screen keyboard
 * open (844 × 170 CSS px), where the panel is the visual viewport's height. The header, message
 * box and disclaimer then take their compact sizes and the conversation the rest (decision 810).
 * The floating panel is the size container; nothing else is, so an inline panel (whose height
 * the page may leave to its content) never matches. A build-time constant, not input.
 */
export const SHORT_PANEL = unsafeCSS('(max-height: 300px)');
