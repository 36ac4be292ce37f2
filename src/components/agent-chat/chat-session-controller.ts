import type { ReactiveController, ReactiveControllerHost } from 'lit';
import { ContextProvider } from '@lit/context';
import {
  ChatSession,
  type ChatSessionConfig,
  type ChatSessionOptions,
  type ChatSnapshot,
} from '../../chat/chat-session.js';
import type { ClientTool } from '../../public-types.js';
import type { ChatMessage } from '../../chat/types.js';
import { createDeviceMemoryStore } from '../../chat/device-memory-store.js';
import { AgentChatToolCallEvent } from '../../events/tool-call.js';
import { AgentChatToolResultEvent } from '../../events/tool-result.js';
import { conversationContext, threadListContext } from '../../context/index.js';
import { AgentChatAnswerEndEvent } from '../../events/answer-end.js';
import { AgentChatAnswerStartEvent } from '../../events/answer-start.js';
import { AgentChatErrorEvent } from '../../events/error.js';
import { AgentChatFeedbackEvent } from '../../events/feedback.js';
import type { AgentChatMessageActionEvent } from '../../events/message-action.js';
import { AgentChatMessageSendEvent } from '../../events/message-send.js';
import type { Translate } from '../../i18n/index.js';
import { AgentChatSessionChangeEvent } from '../../events/session-change.js';
import { AgentChatThreadChangeEvent } from '../../events/thread-change.js';
import { conversationTranscript } from '../../chat/transcript.js';
import { loadMarkdown, markdownEngine, prepareMarkdown } from '../../markdown/load.js';
import { whenIdle } from '../../internal/when-idle.js';
import { publishInterval } from '../../chat/publish-pace.js';

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
  /** Nothing is written to the device until the visitor's consent is given (setConsent). */
  consentRequired: boolean;
}

export interface ChatSessionControllerOptions extends Pick<
  ChatSessionOptions,
  'attachmentRules' | 'uploadTransport' | 'formatBytes'
> {
  /** The visitor's language, sent with every chat call (§4). */
  locale?: () => string | undefined;
  /** The device remembered the panel open or closed. */
  onPanelRestored: (open: boolean) => void;
  /** The widget's words, for what the live region says. */
  t: () => Translate;
}

/**
 * A scheduler: the first animation frame at least `interval()` ms after its previous run. It
 * sleeps on a timer until then: asking for every frame meanwhile made the browser run (and
 * commit) three frames per publish with nothing new in two of them.
 */
function throttledFrames(interval: () => number): (callback: () => void) => void {
  let last = -Infinity;
  return (callback) => {
    const frame = (time: number) => {
      last = time;
      callback();
    };
    const wait = last + interval() - performance.now();
    if (wait <= 0) requestAnimationFrame(frame);
    else setTimeout(() => requestAnimationFrame(frame), wait);
  };
}

/** The session's config, read from the element's properties each time it is needed (`baseUrl` '' is the page's origin). */
function configOf(host: ChatSessionHost): ChatSessionConfig {
  return {
    projectId: host.projectId,
    integrationId: host.integrationId,
    baseUrl: host.baseUrl || location.origin,
    baseUrlGiven: Boolean(host.baseUrl),
    sessionEndpoint: host.sessionEndpoint,
    getSessionToken: host.getSessionToken,
    sessionRequestHeaders: host.sessionRequestHeaders,
    ownerKey: host.ownerKey,
    idleTimeoutMs: host.streamIdleTimeout,
  };
}

/** A session hook that fires the public event of the same detail on the host. */
function fire<Detail>(host: HTMLElement, PublicEvent: new (detail: Detail) => Event) {
  return (detail: Detail) => void host.dispatchEvent(new PublicEvent(detail));
}

/**
 * The Lit adapter over ChatSession: provides its snapshots as context, turns its hooks into
 * public DOM events, asks the page before a question goes, takes the children's intents, and
 * ties the session to the host's lifecycle, the visitor's consent and the page's visibility.
 */
export class ChatSessionController implements ReactiveController {
  readonly session: ChatSession;
  /**
   * What the polite live region says (decision 712): "Thinking…" as an answer starts, a tool
   * that waits for the visitor's approval, the finished answer in plain words; `id` re-announces
   * a repeat.
   */
  announcement = { id: 0, text: '' };
  /** The tool call whose wait for approval was said, so that each is said once. */
  #asked?: string;
  readonly #conversation: ContextProvider<typeof conversationContext>;
  readonly #threadList: ContextProvider<typeof threadListContext>;
  #checked = false;
  #consentGiven = false;
  readonly #host: ChatSessionHost;
  readonly #options: ChatSessionControllerOptions;

  constructor(host: ChatSessionHost, options: ChatSessionControllerOptions) {
    host.addController(this);
    this.#host = host;
    this.#options = options;
    this.session = new ChatSession(
      {
        ...options,
        config: () => configOf(host),
        // Where this widget's state lives on the device: project, integration and element id.
        scope: () => [host.projectId, host.integrationId, host.id].filter(Boolean).join(':'),
        openStore: createDeviceMemoryStore,
        // Streaming text: smooth to read, a fraction of the work (publishInterval).
        schedule: throttledFrames(() =>
          publishInterval(this.session.snapshot.conversation.messages.at(-1)?.content.length ?? 0),
        ),
        tools: () => host.tools,
        storageAllowed: () => !host.consentRequired || this.#consentGiven,
      },
      {
        onChange: (snapshot) => {
          this.#conversation.setValue(snapshot.conversation);
          this.#threadList.setValue(snapshot.threadList);
          this.#sayWaiting(snapshot.conversation.messages.at(-1));
          host.requestUpdate();
        },
        onAnswerStart: (detail) => {
          // Said once, not per token: a visitor who cannot see the dots knows the question went.
          this.#say(options.t()('thinking'));
          host.dispatchEvent(new AgentChatAnswerStartEvent(detail));
        },
        onAnswerEnd: ({ text, ...detail }) => {
          const words =
            detail.outcome === 'complete'
              ? (markdownEngine()?.announcementText(text) ?? text.slice(0, 300))
              : detail.outcome === 'aborted'
                ? options.t()('answerStopped')
                : '';
          this.#say(words);
          host.dispatchEvent(new AgentChatAnswerEndEvent(detail));
        },
        onThreadChange: (threadId) => host.dispatchEvent(new AgentChatThreadChangeEvent({ threadId })),
        onSessionChange: (status) => host.dispatchEvent(new AgentChatSessionChangeEvent({ status })),
        // The page gets the code, status and English words; the text key is the screen's business.
        onError: ({ key: _key, values: _values, ...error }) =>
          host.dispatchEvent(new AgentChatErrorEvent(error)),
        onFeedback: fire(host, AgentChatFeedbackEvent),
        onPanelRestored: options.onPanelRestored,
        onToolCall: fire(host, AgentChatToolCallEvent),
        onToolResult: fire(host, AgentChatToolResultEvent),
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

  /** The page may veto a question (`agent-chat-message-send`, cancelable): whether it lets `text` go. */
  approves(text: string): boolean {
    const { threadId } = this.snapshot.conversation;
    return this.#host.dispatchEvent(new AgentChatMessageSendEvent({ threadId, text }));
  }

  /** Sends `text` as the visitor would, unless the page vetoes it; resolves when the answer ends. */
  async send(text: string): Promise<boolean> {
    if (!text.trim() || !this.approves(text)) return false;
    // An answer is coming: its markdown engine loads now if it has not yet.
    void loadMarkdown().catch(() => {});
    // While an answer streams (or offline) the text waits in the outbox and goes once it may.
    return this.session.send(text);
  }

  /**
   * The panel shows (open, or inline) or hides. Shown, a remembered conversation of a named owner
   * may now cost a session to confirm (OwnerGate), and an answer may come soon, so its markdown
   * engine loads when the page is idle.
   */
  shown(visible: boolean): void {
    this.session.owner.setVisible(visible);
    if (visible) prepareMarkdown(whenIdle);
  }

  /** The visitor's consent given or withdrawn: what was stored goes when it is withdrawn (see ChatSession). */
  setConsent(given: boolean): Promise<void> {
    this.#consentGiven = given;
    return this.session.setStorageAllowed(!this.#host.consentRequired || given);
  }

  /** The conversation on screen as Markdown, in the widget's language. */
  transcript(): string {
    const t = this.#options.t();
    const { conversation, threadList } = this.snapshot;
    return conversationTranscript(conversation, threadList.threads, {
      you: t('you'),
      assistant: t('assistant'),
      sources: t('sources'),
    });
  }

  /** Allow / Deny on a tool card; the internal event stops here. */
  readonly decideTool = (event: CustomEvent<{ toolCallId: string; allowed: boolean }>): void => {
    event.stopPropagation();
    this.session.conversation.tools.decide(event.detail.toolCallId, event.detail.allowed);
  };

  /** Feedback or Regenerate under an answer. */
  readonly act = (event: AgentChatMessageActionEvent): void => {
    const { messageId, action, comment } = event.detail;
    const { conversation } = this.session;
    void (action === 'regenerate'
      ? conversation.regenerate()
      : conversation.react(messageId, action, comment));
  };

  #say(text: string): void {
    this.announcement = { id: this.announcement.id + 1, text };
  }

  /** An answer that waits for the visitor to allow a tool says so, once per call. */
  #sayWaiting(message: ChatMessage | undefined): void {
    const waiting = message?.toolCalls?.find((call) => call.state === 'awaiting-approval');
    if (!waiting || waiting.id === this.#asked) return;
    this.#asked = waiting.id;
    this.#say(`${waiting.sentence || waiting.displayName}: ${this.#options.t()('toolAwaitingApproval')}`);
  }

  hostConnected(): void {
    this.session.connect();
    // Unload never calls disconnectedCallback; these are the moments a page can still write.
    addEventListener('pagehide', this.#leave);
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
    removeEventListener('pagehide', this.#leave);
    document.removeEventListener('visibilitychange', this.#handleVisibility);
  }

  readonly #leave = () => this.session.memory.leave();

  readonly #handleVisibility = () => {
    if (document.visibilityState === 'hidden') void this.session.memory.flush();
    // Another tab may have written meanwhile.
    else void this.session.memory.revisit(true);
  };
}
