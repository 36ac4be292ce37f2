/** Webhooks a project notifies and the deliveries of each event to them (decisions 612-617). */

/** What a webhook can be told: a visitor asked for a person, voted an answer down, an answer failed. */
export const NOTIFICATION_EVENTS = ['handoff', 'downvote', 'answer_failed'] as const;
export type NotificationEvent = (typeof NOTIFICATION_EVENTS)[number];

export interface WebhookRecord {
  id: string;
  projectId: string;
  url: string;
  events: NotificationEvent[];
  /** The signing secret, stored as is: the service signs with it (decision 615). */
  secret: string;
  createdAt: number;
}

/** One event to write a delivery for, to each of the project's webhooks that wants it. */
export interface NotificationInput {
  projectId: string;
  event: NotificationEvent;
  /** The conversation it quotes: its deliveries go when the conversation is deleted or erased. */
  threadId: string;
  /** One delivery per webhook and key: a second event with the same key replaces an unsent payload. */
  dedupe: string;
  /** The JSON body, whole: the payload is built once, when the event happens. */
  body: string;
  at: number;
  /** When the first attempt is due (a downvote waits for its reasons, decision 613). */
  notBefore: number;
}

export type DeliveryStatus = 'pending' | 'sent' | 'failed';

export interface DeliveryRecord {
  id: string;
  webhookId: string;
  event: NotificationEvent | 'test';
  status: DeliveryStatus;
  attempts: number;
  createdAt: number;
  /** The last attempt's time, status code (null: no response) and error (null: none). */
  lastAt: number | null;
  lastCode: number | null;
  lastError: string | null;
}

/** A delivery claimed for sending: what the request needs. */
export interface ClaimedDelivery {
  id: string;
  url: string;
  secret: string;
  body: string;
  attempts: number;
}

/** What one attempt came to: `nextAt` null when no attempt follows (sent, or given up). */
export interface DeliveryAttempt {
  at: number;
  code: number | null;
  error: string | null;
  sent: boolean;
  nextAt: number | null;
}
