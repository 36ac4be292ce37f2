/**
 * Every text the widget shows or speaks, in English: the source every locale translates and the
 * fallback for a missing locale. `{name}` marks a value filled in at run time; a translation keeps
 * the same placeholders (a test checks it).
 *
 * The names of the UI contract (`../shared/spec/ui-contract.md`) are the English values of
 * `openChat`, `message`, `send`, `stop`, `conversations`, `newConversation`, `renameThread`,
 * `deleteThread`, `conversationTitle`, `searchConversations`, `copyAnswer`, `copyCode`, `helpful`,
 * `notHelpful`, `allow`, `deny`, `talkToPerson`, `queued`, `removeQueued` and
 * `downloadConversation`: keep them stable.
 */
export const en = {
  // Launcher and panel
  openChat: 'Open chat',
  closeChat: 'Close chat',
  title: 'Chat',
  conversations: 'Conversations',
  newConversation: 'New conversation',
  more: 'More',

  // Start screen
  greeting: 'Hi! How can I help?',
  suggestedQuestions: 'Suggested questions',
  recentConversations: 'Recent conversations',

  // Composer
  message: 'Message',
  messagePlaceholder: 'Ask a question…',
  send: 'Send',
  stop: 'Stop',

  // Messages
  you: 'You',
  assistant: 'Assistant',
  thinking: 'Thinking…',
  sending: 'Sending…',
  notSent: 'Not sent',
  stopped: 'Stopped',
  interrupted: 'Interrupted',
  queued: 'Queued',
  removeQueued: 'Remove queued message',
  waitingForConnection: 'Waiting for a connection',
  /** An answer cut off while the browser is online: the widget tries to reattach to it (decision 587). */
  reconnecting: 'Reconnecting…',
  retry: 'Retry',
  jumpToLatest: 'Jump to latest',
  sources: 'Sources',
  copyAnswer: 'Copy answer',
  copyCode: 'Copy code',
  copied: 'Copied',
  /** A code block's toggle (pressed: long lines wrap instead of scrolling sideways). */
  wrapLines: 'Wrap lines',
  copyFailed: 'Copy failed',
  code: 'Code',
  answerTruncated: 'This answer is too long to format; the rest is shown as plain text.',
  regenerate: 'Regenerate',
  downloadConversation: 'Download conversation',

  // Feedback, uncertainty, handoff
  helpful: 'Helpful',
  notHelpful: 'Not helpful',
  feedbackQuestion: 'What went wrong?',
  feedbackIncorrect: 'Incorrect',
  feedbackIrrelevant: 'Not relevant',
  feedbackUnaddressed: "Didn't answer my question",
  feedbackDetails: 'Tell us more (optional)',
  feedbackSubmit: 'Send feedback',
  feedbackThanks: 'Thanks for your feedback!',
  uncertain: "I'm not sure this answer is right. Please double-check it.",
  talkToPerson: 'Talk to a person',
  handoffSubject: 'Conversation with the assistant',

  // Client-side tools and agent activity
  allow: 'Allow',
  deny: 'Deny',
  toolPending: 'Pending',
  toolAwaitingApproval: 'Waiting for your approval',
  toolRunning: 'Running',
  toolDone: 'Done',
  toolError: 'Failed',
  toolDenied: 'Denied',
  toolAskedAgain: 'You allowed this for the answer before. Regenerating asks again before it runs.',
  stepWorking: 'Working on it…',
  stepDone: 'Step done',
  stepFailed: 'A step failed',
  stepResults: 'Results: {count}',

  // Conversations list
  untitled: 'Untitled conversation',
  searchConversations: 'Search conversations',
  noMatches: 'No conversations match “{query}”.',
  clearSearch: 'Clear search',
  searchMatches: 'Matching conversations: {count}',
  searchLoadedOnly: 'Only the conversations loaded so far are searched.',
  noConversations: 'No conversations yet.',
  signInForHistory: 'Sign in to see your past conversations.',
  noHistoryKept: 'Your conversations here will be kept on this device only.',
  historyError: 'Your conversations could not be loaded.',
  showMore: 'Show more',
  loading: 'Loading…',
  renameThread: 'Rename {title}',
  deleteThread: 'Delete {title}',
  conversationTitle: 'Conversation title',
  confirmDelete: 'Delete “{title}”? This cannot be undone.',
  confirmDeleteHere: 'Delete “{title}” from this device? This cannot be undone.',
  save: 'Save',
  cancel: 'Cancel',
  delete: 'Delete',
  threadDeleted: '“{title}” deleted',
  justNow: 'Just now',
  today: 'Today',
  yesterday: 'Yesterday',
  previous7Days: 'Previous 7 days',

  // Failures, in plain words: status codes stay in the agent-chat-error event
  errorGeneric: 'Something went wrong. Please try again.',
  errorNetwork: "The assistant can't be reached. Check your connection and try again.",
  errorRateLimited: 'Too many messages right now. Try again in {seconds} s.',
  errorRateLimitedShort: 'Too many messages right now. Try again shortly.',
  errorTooLong: 'That message is too long. Please shorten it.',
  errorThreadGone: 'This conversation no longer exists. Start a new one.',
  errorSignInRequired: 'This is only available when you are signed in.',
  errorSession: "The chat couldn't start. Please try again.",
  errorInterrupted: 'The answer was interrupted.',
  errorNotConfigured: 'This chat is not set up yet.',
  errorNotAllowedHere: "This chat isn't available on this website.",
  errorBusy: 'The chat is busy right now. Please try again in a minute.',
  errorBudgetSpent: 'This chat has reached its limit for today. Please try again tomorrow.',
  errorThreadGoneRetry: 'This conversation no longer exists. Retry to send your message in a new one.',
  errorFilesGone:
    '{files}: no longer available. To send a file, attach it again; Retry sends your message without files.',
  errorFilesGoneOnly: '{files}: no longer available. To send a file, attach it again.',
  // Several files gone: the same words in English; a language whose words agree in number with
  // the files (French, Spanish…) says them in the plural here.
  errorFilesGoneSeveral:
    '{files}: no longer available. To send a file, attach it again; Retry sends your message without files.',
  errorFilesGoneOnlySeveral: '{files}: no longer available. To send a file, attach it again.',
  answerStopped: 'Answer stopped.',

  // Files a question carries
  attachFiles: 'Attach files',
  removeFile: 'Remove {name}',
  fileAttached: '{name} attached',
  fileRemoved: '{name} removed',
  attachedFiles: 'Attached files',
  downloadFile: 'Download {name}',
  uploadingFile: 'Uploading {name}: {percent} %',
  dropFiles: 'Drop files to attach',
  fileTooLarge: '{name} is too large: files like it may be up to {max}.',
  fileTypeRefused: "{name} can't be attached. You can attach {allowed}.",
  tooManyFiles: 'You can attach up to {count} files to a question.',
  fileUploadFailed: "{name} couldn't be uploaded. Remove it and try again.",
  waitForUploads: 'Wait until your files have uploaded.',
  tooManyUnsentFiles: 'Too many files are waiting to be sent. Send or remove some first.',
  filesRefusedToday: 'This site takes no more files today. You can still ask without them.',
  fileKindImage: 'images',
  fileKindText: 'text files',
  fileKindPdf: 'PDFs',
};

export type UiStringKey = keyof typeof en;
/** A complete set of texts: what every locale module exports. */
export type UiStrings = Record<UiStringKey, string>;
