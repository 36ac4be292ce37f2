/** Where each call goes, relative to the service base URL (docs/protocol.md). Every path ends with a slash. */

const id = (value: string) => encodeURIComponent(value);

/** `{base}/agent/v1/projects/{projectId}/agent`: the agent API; the paths below follow it. */
export const agentBase = (projectId: string) => `/agent/v1/projects/${id(projectId)}/agent`;

export const agentPaths = {
  sessions: '/sessions/',
  chat: '/chat/',
  feedback: '/feedback/',
  /** The visitor asked for a person in this thread ("Talk to a person"): recorded for the console. */
  handoff: '/handoff/',
  threads: '/threads/',
  thread: (threadId: string) => `/threads/${id(threadId)}/`,
  answerStream: (answerId: string) => `/answers/${id(answerId)}/stream/`,
  answerCancel: (answerId: string) => `/answers/${id(answerId)}/cancel/`,
  /** Uploads (POST, multipart) and downloads of a visitor's files (§11). */
  files: '/files/',
  file: (fileId: string) => `/files/${id(fileId)}/`,
} as const;

/**
 * `{base}/agent/v1/projects/{projectId}/integrations/{integrationId}`: public sessions (§2b), for
 * an integration its owner marked public; the paths below follow it.
 */
export const publicBase = (projectId: string, integrationId: string) =>
  `/agent/v1/projects/${id(projectId)}/integrations/${id(integrationId)}`;

export const publicPaths = {
  /** GET an ALTCHA challenge (proof of work). */
  challenge: '/challenge/',
  /** POST the solved challenge: an anonymous session. */
  sessions: '/sessions/',
} as const;

/** `{base}/widget/{version}/{file}`: the widget's own files, served by the service (§12). */
export const widgetPath = (version: string, file: string) => `/widget/${id(version)}/${file}`;
/** The version segment that redirects to the release the service serves. */
export const LATEST_WIDGET = 'latest';

/** `{base}/query/v1/projects/{projectId}`: the query API (server to server). */
export const queryBase = (projectId: string) => `/query/v1/projects/${id(projectId)}`;

export const queryPaths = {
  activity: '/activity/',
  /** One integration as its project's owner sees it (decision 464): what a site checks its setup against. */
  integration: (integrationId: string) => `/integrations/${id(integrationId)}/`,
  /** Removed after 2026-07-01: answers 410 and names `activity` as its successor. */
  removedAnalyticsActivity: '/analytics/activity/',
} as const;

/** The session endpoint's header with the owner key (§2). */
export const OWNER_KEY_HEADER = 'Agent-Chat-Owner-Key';
/**
 * The chat call's optional header that names one question (§4, decision 453): a resend with the
 * same key gets the answer the first one began, never a second answer.
 */
export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';
/** The owner key of a session without owner (§2). */
export const NO_OWNER = '-';
