import type { ReactiveController, ReactiveControllerHost } from 'lit';
import { createApiClient, type ApiClient } from '../api/api-client.js';
import { ApiError } from '../api/errors.js';
import { Conversation, fromThreadMessage } from '../chat/conversation.js';
import { describeError } from '../chat/describe-error.js';
import { ThreadDirectory, type HistorySnapshot } from '../chat/thread-directory.js';
import type { ConversationSnapshot, ErrorInfo } from '../chat/types.js';
import { AgentChatAnswerEndEvent } from '../events/answer-end.js';
import { AgentChatAnswerStartEvent } from '../events/answer-start.js';
import { AgentChatErrorEvent } from '../events/error.js';
import { AgentChatSessionChangeEvent } from '../events/session-change.js';
import { AgentChatThreadChangeEvent } from '../events/thread-change.js';
import { announcementText } from '../markdown/plain-text.js';
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

export interface ChatControllerOptions {
  config: () => ChatConfig;
  /**
   * The remembered data (cache, drafts) belonged to someone else. The controller has already
   * cleaned the list and the conversation on screen; the host forgets what it stored.
   */
  onOwnerChanged: () => void;
  /** The thread list went stale; reload it now if the visitor is looking at it. */
  onHistoryChanged: () => void;
}

/** Streaming text is published at most this often: smooth to read, a fraction of the work. */
export const STREAM_PUBLISH_INTERVAL_MS = 50;

/** A scheduler: the next animation frame at least STREAM_PUBLISH_INTERVAL_MS after its previous run. */
function throttledFrames(): (callback: () => void) => void {
  let last = 0;
  return (callback) => {
    const frame = (time: number) => {
      if (time - last < STREAM_PUBLISH_INTERVAL_MS) return void requestAnimationFrame(frame);
      last = time;
      callback();
    };
    requestAnimationFrame(frame);
  };
}

const missingSource = async (): Promise<never> => {
  throw new Error('[agent-chat] Set the session-endpoint attribute or the getSessionToken property.');
};

/**
 * Lit adapter over the framework-free core: builds the token manager and API client from the
 * host's configuration (lazily: nothing is fetched until the visitor needs the service), runs
 * the Conversation and the ThreadDirectory, and turns their hooks into public DOM events.
 */
export class ChatController implements ReactiveController {
  snapshot: ConversationSnapshot;
  history: HistorySnapshot;
  /** The last finished answer in plain words, for the polite live region; `id` re-announces a repeat. */
  announcement = { id: 0, text: '' };
  readonly conversation: Conversation;
  readonly directory: ThreadDirectory;

  private tokens?: TokenManager;
  private api?: ApiClient;
  private clientKey = '';
  private customSource?: ChatConfig['getSessionToken'];
  private unsubscribe?: () => void;

  constructor(
    private readonly host: ChatControllerHost,
    private readonly options: ChatControllerOptions,
  ) {
    host.addController(this);
    const client = () => this.client();
    this.conversation = new Conversation(client, {
      onChange: (snapshot) => {
        this.snapshot = snapshot;
        host.requestUpdate();
      },
      onAnswerStart: (detail) => host.dispatchEvent(new AgentChatAnswerStartEvent(detail)),
      onAnswerEnd: ({ text, ...detail }) => {
        const words = detail.outcome === 'complete' ? announcementText(text) : detail.outcome === 'aborted' ? 'Answer stopped.' : '';
        this.announcement = { id: this.announcement.id + 1, text: words };
        host.dispatchEvent(new AgentChatAnswerEndEvent(detail));
        // A message creates or bumps a thread: the list is out of date.
        this.directory.markStale();
        options.onHistoryChanged();
      },
      onThreadChange: (threadId) => host.dispatchEvent(new AgentChatThreadChangeEvent({ threadId })),
      onThreadGone: (threadId) => this.forgetThread(threadId),
      onError: (error) => this.reportError(error),
    }, { schedule: throttledFrames() });
    this.directory = new ThreadDirectory(client, {
      onChange: (history) => {
        this.history = history;
        host.requestUpdate();
      },
      // History is gone for this visitor: a conversation on screen can only be the previous
      // owner's (an anonymous visitor's own thread could not have been listed).
      onOwnerLost: () => {
        this.conversation.reset();
        options.onOwnerChanged();
      },
    });
    this.snapshot = this.conversation.snapshot;
    this.history = this.directory.snapshot;
  }

  hostDisconnected(): void {
    this.conversation.dispose();
  }

  /** Resumes a thread from the service. A thread the service no longer knows leaves the list. */
  async openThread(threadId: string): Promise<void> {
    try {
      const thread = await this.client().getThread(threadId);
      this.conversation.reset(thread.id, thread.messages.map(fromThreadMessage));
    } catch (error) {
      if (error instanceof ApiError && error.status === 404) this.forgetThread(threadId);
      this.reportError(describeError(error));
    }
  }

  async deleteThread(threadId: string): Promise<void> {
    try {
      await this.directory.remove(threadId);
      if (this.snapshot.threadId === threadId) this.conversation.reset();
    } catch (error) {
      this.reportError(describeError(error));
    }
  }

  /** Forgets the token; the next request starts a new session. */
  clearSession(): void {
    this.tokens?.clear();
  }

  private forgetThread(threadId: string): void {
    const fromCache = this.directory.snapshot.status === 'idle';
    this.directory.drop(threadId);
    // The live snapshot: a failed send has already moved the conversation off the thread.
    if (this.conversation.snapshot.threadId === threadId) this.conversation.reset();
    if (fromCache) {
      // A remembered thread that the service denies knowing: the cache is someone else's.
      this.directory.clear();
      this.options.onOwnerChanged();
    }
  }

  private reportError(error: ErrorInfo): void {
    this.host.dispatchEvent(new AgentChatErrorEvent(error));
  }

  /** The API client for the current configuration; rebuilt (with a fresh session) when it changes. */
  private client(): ApiClient {
    const config = this.options.config();
    const key = JSON.stringify([config.projectId, config.integrationId, config.baseUrl, config.sessionEndpoint]);
    if (!this.api || key !== this.clientKey || config.getSessionToken !== this.customSource) {
      this.unsubscribe?.();
      const source = config.getSessionToken ?? (config.sessionEndpoint ? endpointTokenSource(config.sessionEndpoint) : missingSource);
      this.tokens = new TokenManager(source);
      this.customSource = config.getSessionToken;
      this.unsubscribe = this.tokens.subscribe((status) => this.host.dispatchEvent(new AgentChatSessionChangeEvent({ status })));
      this.api = createApiClient({ baseUrl: config.baseUrl, projectId: config.projectId, integrationId: config.integrationId, tokens: this.tokens });
      this.clientKey = key;
    }
    return this.api;
  }
}
