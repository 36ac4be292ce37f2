import type { AgentChatMethods, AgentChatProperties } from '../public-types.js';

/**
 * What the loader forwards before and after the element arrives. Typed against the public
 * types, which the type test keeps equal to the element; test/dist/manifest.test.ts checks
 * the part list against the manifest.
 */
export const PROPERTIES = [
  'projectId',
  'integrationId',
  'sessionEndpoint',
  'baseUrl',
  'ownerKey',
  'streamIdleTimeout',
  'mode',
  'theme',
  'heading',
  'subheading',
  'avatar',
  'disclaimer',
  'greeting',
  'prompts',
  'opened',
  'getSessionToken',
  'sessionRequestHeaders',
  'strings',
  'tools',
  'consentRequired',
  'handoff',
  'handoffUrl',
  'attachments',
  'attachmentTypes',
  'attachmentMaxSize',
  'attachmentMaxFiles',
] as const satisfies ReadonlyArray<keyof AgentChatProperties>;
export const METHODS = [
  'open',
  'close',
  'toggle',
  'send',
  'newConversation',
  'clearSession',
  'grantConsent',
  'revokeConsent',
  'exportTranscript',
] as const satisfies ReadonlyArray<keyof AgentChatMethods>;
export const PARTS = [
  'launcher',
  'panel',
  'header',
  'sidebar',
  'conversation',
  'message',
  'message-user',
  'message-assistant',
  'message__bubble',
  'message__content',
  'message__sources',
  'message__error',
  'message__actions',
  'avatar',
  'disclaimer',
  'composer',
  'composer__field',
  'composer__input',
  'composer__send-button',
  'composer__attach-button',
  'message__files',
  'error',
  'agent-bar',
  'menu',
];

/** Fails typecheck when a property or method is added to the public types but not here. */
export type Exhaustive = [
  Exclude<keyof AgentChatProperties, (typeof PROPERTIES)[number]>,
  Exclude<keyof AgentChatMethods, (typeof METHODS)[number]>,
] extends [never, never]
  ? true
  : never;
export const exhaustive: Exhaustive = true;
