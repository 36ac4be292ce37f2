/**
 * The element's public type, properties, methods and events as plain types, with no Lit in
 * them: the package's declarations end here, the framework declarations (React, Preact, Vue,
 * Svelte) build on them, and a consumer needs no Lit types (or any other package) to use them.
 * test/types/public-types.test-d.ts keeps them equal to the element's real members.
 */
import type { AgentChatAnswerEndEvent } from './events/answer-end.js';
import type { AgentChatAnswerStartEvent } from './events/answer-start.js';
import type { AgentChatErrorEvent } from './events/error.js';
import type { AgentChatFeedbackEvent } from './events/feedback.js';
import type { AgentChatMessageSendEvent } from './events/message-send.js';
import type { AgentChatOpenChangeEvent } from './events/open-change.js';
import type { AgentChatSessionChangeEvent } from './events/session-change.js';
import type { AgentChatThreadChangeEvent } from './events/thread-change.js';
import type { SessionPayload } from './session/types.js';
import type { SessionRequestHeaders } from './session/endpoint-source.js';
import type { AgentChatHandoffEvent } from './events/handoff.js';
import type { AgentChatToolCallEvent } from './events/tool-call.js';
import type { AgentChatToolResultEvent } from './events/tool-result.js';

/** What a tool's `execute` gets besides its arguments. */
export interface ClientToolContext {
  toolCallId: string;
  threadId: string | null;
  /** Aborted when the answer is stopped or the tool times out. */
  signal: AbortSignal;
}

/** A function the agent may call in the visitor's browser (wire contract §7). */
export interface ClientTool {
  name: string;
  description: string;
  /** A JSON Schema object for the arguments. */
  parameters: Record<string, unknown>;
  execute(args: Record<string, unknown>, context: ClientToolContext): unknown;
  /** Ask the visitor (Allow / Deny) before each call. */
  needsApproval?: boolean;
  /** The name the visitor sees; defaults to `name` in words ("open_page" reads "Open page"). */
  displayName?: string;
  /**
   * What a call will do, in the visitor's words, shown on its card before approval, e.g.
   * `({ page }) => \`Open the ${page} page\``. Without it the card lists the arguments.
   */
  describe?(args: Record<string, unknown>): string;
  /** Milliseconds before a call counts as failed; default TOOL_TIMEOUT_MS. */
  timeoutMs?: number;
}

/** What a page or a framework sets on `<agent-chat>`. */
export interface AgentChatProperties {
  projectId: string;
  integrationId: string;
  sessionEndpoint: string;
  baseUrl: string;
  ownerKey: string;
  streamIdleTimeout: number;
  mode: 'launcher' | 'inline';
  theme: 'light' | 'dark' | 'auto';
  heading: string;
  subheading: string;
  avatar: string;
  disclaimer: string;
  greeting: string;
  prompts: string;
  opened: boolean;
  strings?: Partial<Record<string, string>>;
  getSessionToken?: (signal: AbortSignal) => Promise<SessionPayload>;
  sessionRequestHeaders?: SessionRequestHeaders;
  tools: ClientTool[];
  consentRequired: boolean;
  handoff: string;
  handoffUrl: string;
  attachments: string;
  attachmentTypes: string;
  attachmentMaxSize: number;
  attachmentMaxFiles: number;
}

/** The attributes of `<agent-chat>`, as written in HTML. */
export interface AgentChatAttributes {
  'project-id'?: string;
  'integration-id'?: string;
  'session-endpoint'?: string;
  'base-url'?: string;
  'owner-key'?: string;
  'stream-idle-timeout'?: number | string;
  mode?: AgentChatProperties['mode'];
  theme?: AgentChatProperties['theme'];
  heading?: string;
  subheading?: string;
  avatar?: string;
  disclaimer?: string;
  greeting?: string;
  prompts?: string;
  open?: boolean;
  'consent-required'?: boolean;
  handoff?: string;
  'handoff-url'?: string;
  attachments?: 'on' | 'off';
  'attachment-types'?: string;
  'attachment-max-size'?: number | string;
  'attachment-max-files'?: number | string;
}

/** Every public event `<agent-chat>` fires, by name. */
export interface AgentChatEventMap {
  'agent-chat-message-send': AgentChatMessageSendEvent;
  'agent-chat-answer-start': AgentChatAnswerStartEvent;
  'agent-chat-answer-end': AgentChatAnswerEndEvent;
  'agent-chat-error': AgentChatErrorEvent;
  'agent-chat-open-change': AgentChatOpenChangeEvent;
  'agent-chat-thread-change': AgentChatThreadChangeEvent;
  'agent-chat-session-change': AgentChatSessionChangeEvent;
  'agent-chat-tool-call': AgentChatToolCallEvent;
  'agent-chat-tool-result': AgentChatToolResultEvent;
  'agent-chat-handoff': AgentChatHandoffEvent;
  'agent-chat-feedback': AgentChatFeedbackEvent;
}

/** The public methods, for a typed ref without the element class. */
export interface AgentChatMethods {
  open(options?: { query?: string; submit?: boolean }): Promise<void>;
  close(): Promise<void>;
  toggle(): Promise<void>;
  send(text: string): Promise<boolean>;
  newConversation(): void;
  clearSession(): Promise<void>;
  grantConsent(): Promise<void>;
  revokeConsent(): Promise<void>;
  exportTranscript(): Promise<string>;
}

/**
 * `<agent-chat>` as a page, a framework or `document.querySelector('agent-chat')` sees it: an
 * HTMLElement with the widget's properties and methods. Its events are typed through
 * `AgentChatEventMap` and the global event map, so `addEventListener('agent-chat-error', …)`
 * gets an `AgentChatErrorEvent`. The element's class is an implementation detail.
 */
export interface AgentChat extends HTMLElement, AgentChatProperties, AgentChatMethods {}

declare global {
  interface HTMLElementTagNameMap {
    'agent-chat': AgentChat;
  }
}
