import type { ReactiveController, ReactiveControllerHost } from 'lit';
import { ContextProvider } from '@lit/context';
import {
  ChatSession,
  type ChatSessionConfig,
  type ChatSessionOptions,
  type ChatSnapshot,
} from '../../chat/chat-session.js';
import type { ClientTool } from '../../public-types.js';
import { createDeviceMemoryStore } from '../../chat/device-memory-store.js';
import { AgentChatToolCallEvent } from '../../events/tool-call.js';
import { AgentChatToolResultEvent } from '../../events/tool-result.js';
import { conversationContext, threadListContext } from '../../context/index.js';
import { AgentChatAnswerEndEvent } from '../../events/answer-end.js';
import { AgentChatAnswerStartEvent } from '../../events/answer-start.js';
import { AgentChatErrorEvent } from '../../events/error.js';
import { AgentChatFeedbackEvent } from '../../events/feedback.js';
import type { Translate } from '../../i18n/index.js';
import { AgentChatSessionChangeEvent } from '../../events/session-change.js';
import { AgentChatThreadChangeEvent } from '../../events/thread-change.js';
import { markdownEngine } from '../../markdown/load.js';

/**
 * The element's properties the session reads each time it needs them (attributes may change):
 * the connection's, by the same names (`baseUrl` '' for the page's origin), and a few more.
 */
export interface ChatSessionHost
  extends
    ReactiveControllerHost,
    HTMLElement,
    Pick<
      ChatSessionConfig,
      | 'projectId'
      | 'integrationId'
      | 'baseUrl'
      | 'sessionEndpoint'
      | 'getSessionToken'
      | 'sessionRequestHeaders'
      | 'ownerKey'
    > {
  streamIdleTimeout: number;
  /** The page's client-side tools (§7). */
  tools: readonly ClientTool[];
}

export interface ChatSessionControllerOptions extends Pick<
  ChatSessionOptions,
  'attachmentRules' | 'uploadTransport' | 'formatBytes'
> {
  /** The visitor's language, sent with every chat call (§4). */
  locale?: () => string | undefined;
  /** False while consent is required and not given. */
  storageAllowed?: () => boolean;
  /** The device remembered the panel open or closed. */
  onPanelRestored: (open: boolean) => void;
  /** The widget's words, for what the live region says. */
  t: () => Translate;
}

/** Streaming text is published at most this often: smooth to read, a fraction of the work. */
export const STREAM_PUBLISH_INTERVAL_MS = 50;

/**
 * A scheduler: the first animation frame at least STREAM_PUBLISH_INTERVAL_MS after its previous
 * run. It sleeps on a timer until then: asking for every frame meanwhile made the browser run
 * (and commit) three frames per publish with nothing new in two of them.
 */
function throttledFrames(): (callback: () => void) => void {
  let last = -Infinity;
  return (callback) => {
    const frame = (time: number) => {
      last = time;
      callback();
    };
    const wait = last + STREAM_PUBLISH_INTERVAL_MS - performance.now();
    if (wait <= 0) requestAnimationFrame(frame);
    else setTimeout(() => requestAnimationFrame(frame), wait);
  };
}

/**
 * The Lit adapter over ChatSession: provides its snapshots as context, turns its hooks into
 * public DOM events, and ties it to the host's lifecycle and the page's visibility.
 */
export class ChatSessionController implements ReactiveController {
  readonly session: ChatSession;
  /** The last finished answer in plain words, for the polite live region; `id` re-announces a repeat. */
  announcement = { id: 0, text: '' };
  readonly #conversation: ContextProvider<typeof conversationContext>;
  readonly #threadList: ContextProvider<typeof threadListContext>;
  #checked = false;

  constructor(host: ChatSessionHost, options: ChatSessionControllerOptions) {
    host.addController(this);
    this.session = new ChatSession(
      {
        config: () => ({
          projectId: host.projectId,
          integrationId: host.integrationId,
          baseUrl: host.baseUrl || location.origin,
          baseUrlGiven: Boolean(host.baseUrl),
          sessionEndpoint: host.sessionEndpoint,
          getSessionToken: host.getSessionToken,
          sessionRequestHeaders: host.sessionRequestHeaders,
          ownerKey: host.ownerKey,
          idleTimeoutMs: host.streamIdleTimeout,
        }),
        // Where this widget's state lives on the device: project, integration and element id.
        scope: () => [host.projectId, host.integrationId, host.id].filter(Boolean).join(':'),
        openStore: createDeviceMemoryStore,
        schedule: throttledFrames(),
        tools: () => host.tools,
        locale: options.locale,
        storageAllowed: options.storageAllowed,
        attachmentRules: options.attachmentRules,
        uploadTransport: options.uploadTransport,
        formatBytes: options.formatBytes,
      },
      {
        onChange: (snapshot) => {
          this.#conversation.setValue(snapshot.conversation);
          this.#threadList.setValue(snapshot.threadList);
          host.requestUpdate();
        },
        onAnswerStart: (detail) => host.dispatchEvent(new AgentChatAnswerStartEvent(detail)),
        onAnswerEnd: ({ text, ...detail }) => {
          const words =
            detail.outcome === 'complete'
              ? (markdownEngine()?.announcementText(text) ?? text.slice(0, 300))
              : detail.outcome === 'aborted'
                ? options.t()('answerStopped')
                : '';
          this.announcement = { id: this.announcement.id + 1, text: words };
          host.dispatchEvent(new AgentChatAnswerEndEvent(detail));
        },
        onThreadChange: (threadId) => host.dispatchEvent(new AgentChatThreadChangeEvent({ threadId })),
        onSessionChange: (status) => host.dispatchEvent(new AgentChatSessionChangeEvent({ status })),
        // The page gets the code, status and English words; the text key is the screen's business.
        onError: ({ key: _key, values: _values, ...error }) =>
          host.dispatchEvent(new AgentChatErrorEvent(error)),
        onFeedback: (detail) => host.dispatchEvent(new AgentChatFeedbackEvent(detail)),
        onPanelRestored: options.onPanelRestored,
        onToolCall: (detail) => host.dispatchEvent(new AgentChatToolCallEvent(detail)),
        onToolResult: (detail) => host.dispatchEvent(new AgentChatToolResultEvent(detail)),
      },
    );
    this.#conversation = new ContextProvider(host, {
      context: conversationContext,
      initialValue: this.session.snapshot.conversation,
    });
    this.#threadList = new ContextProvider(host, {
      context: threadListContext,
      initialValue: this.session.snapshot.threadList,
    });
  }

  get snapshot(): ChatSnapshot {
    return this.session.snapshot;
  }

  hostConnected(): void {
    this.session.connect();
    // Unload never calls disconnectedCallback; these are the moments a page can still write.
    addEventListener('pagehide', this.#flush);
    document.addEventListener('visibilitychange', this.#handleVisibility);
  }

  hostUpdate(): void {
    this.session.syncConfig();
  }

  hostUpdated(): void {
    if (this.#checked) return;
    this.#checked = true;
    this.session.checkConfigured();
  }

  hostDisconnected(): void {
    this.session.disconnect();
    removeEventListener('pagehide', this.#flush);
    document.removeEventListener('visibilitychange', this.#handleVisibility);
  }

  readonly #flush = () => void this.session.memory.flush();

  readonly #handleVisibility = () => {
    if (document.visibilityState === 'hidden') void this.session.memory.flush();
    // Another tab may have written meanwhile.
    else void this.session.memory.revisit(true);
  };
}
