import type { ReactiveController, ReactiveControllerHost } from 'lit';
import { createApiClient, type ApiClient } from '../api/api-client.js';
import { Conversation } from '../chat/conversation.js';
import type { ConversationSnapshot, ErrorInfo } from '../chat/types.js';
import { AgentChatAnswerEndEvent } from '../events/answer-end.js';
import { AgentChatAnswerStartEvent } from '../events/answer-start.js';
import { AgentChatErrorEvent } from '../events/error.js';
import { AgentChatSessionChangeEvent } from '../events/session-change.js';
import { AgentChatThreadChangeEvent } from '../events/thread-change.js';
import { plainText } from '../markdown/plain-text.js';
import { endpointTokenSource } from '../session/endpoint-source.js';
import { TokenManager } from '../session/token-manager.js';
import type { SessionPayload } from '../session/types.js';

export type ChatControllerHost = ReactiveControllerHost & HTMLElement;

/** What the controller reads from the host, each time it needs it (attributes may change). */
export interface ChatConfig {
  projectId: string;
  integrationId: string;
  baseUrl: string;
  sessionEndpoint: string;
  getSessionToken?: (signal: AbortSignal) => Promise<SessionPayload>;
}

const missingSource = async (): Promise<never> => {
  throw new Error('[agent-chat] Set the session-endpoint attribute or the getSessionToken property.');
};

/**
 * Lit adapter over the framework-free core: builds the token manager and API client from the
 * host's configuration (lazily: nothing is fetched until a message needs it), runs the
 * Conversation, and turns its hooks into the public DOM events.
 */
export class ChatController implements ReactiveController {
  snapshot: ConversationSnapshot;
  /** The last finished answer in plain words, for the polite live region; `id` re-announces a repeat. */
  announcement = { id: 0, text: '' };

  private tokens?: TokenManager;
  private api?: ApiClient;
  private clientKey = '';
  private customSource?: ChatConfig['getSessionToken'];
  private unsubscribe?: () => void;
  readonly conversation: Conversation;

  constructor(
    private readonly host: ChatControllerHost,
    private readonly config: () => ChatConfig,
  ) {
    host.addController(this);
    this.conversation = new Conversation(() => this.client(), {
      onChange: (snapshot) => {
        this.snapshot = snapshot;
        host.requestUpdate();
      },
      onAnswerStart: (detail) => this.host.dispatchEvent(new AgentChatAnswerStartEvent(detail)),
      onAnswerEnd: ({ text, ...detail }) => {
        const words = detail.outcome === 'complete' ? plainText(text) : detail.outcome === 'aborted' ? 'Answer stopped.' : '';
        this.announcement = { id: this.announcement.id + 1, text: words };
        this.host.dispatchEvent(new AgentChatAnswerEndEvent(detail));
      },
      onThreadChange: (threadId) => this.host.dispatchEvent(new AgentChatThreadChangeEvent({ threadId })),
      onError: (error: ErrorInfo) => this.host.dispatchEvent(new AgentChatErrorEvent(error)),
    }, { schedule: (callback) => requestAnimationFrame(callback) });
    this.snapshot = this.conversation.snapshot;
  }

  hostDisconnected(): void {
    this.conversation.dispose();
  }

  /** Forgets the token; the next message starts a new session. */
  clearSession(): void {
    this.tokens?.clear();
  }

  /** The API client for the current configuration; rebuilt (with a fresh session) when it changes. */
  private client(): ApiClient {
    const config = this.config();
    const key = JSON.stringify([config.projectId, config.integrationId, config.baseUrl, config.sessionEndpoint]);
    if (!this.api || key !== this.clientKey || config.getSessionToken !== this.customSource) {
      this.unsubscribe?.();
      const source = config.getSessionToken ?? (config.sessionEndpoint ? endpointTokenSource(config.sessionEndpoint) : missingSource);
      this.tokens = new TokenManager(source);
      this.customSource = config.getSessionToken;
      this.unsubscribe = this.tokens.subscribe((status) => {
        this.host.dispatchEvent(new AgentChatSessionChangeEvent({ status }));
      });
      this.api = createApiClient({ baseUrl: config.baseUrl, projectId: config.projectId, integrationId: config.integrationId, tokens: this.tokens });
      this.clientKey = key;
    }
    return this.api;
  }
}
