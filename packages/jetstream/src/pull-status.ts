import type { Msg } from '@slipstream/client';
import type { ConsumerNotification } from './consumer-status.js';

/** A header-only status message of a pull (`NATS/1.0 408 Request Timeout`). */
export interface PullStatus {
  code: number;
  description: string;
  /** Nats-Pending-Messages of a 408/409: what the ended request did not deliver. */
  pendingMessages: number;
  /** Nats-Pending-Bytes of a 408/409 of a pull with max_bytes. */
  pendingBytes: number;
}

/** The status a pull reply carries, or undefined for a delivered message. */
export function pullStatus(msg: Msg): PullStatus | undefined {
  if (msg.data.length > 0 || msg.reply) return undefined;
  const h = msg.headers;
  if (!h?.code) return undefined;
  return {
    code: h.code,
    description: h.description,
    pendingMessages: Number(h.get('Nats-Pending-Messages')) || 0,
    pendingBytes: Number(h.get('Nats-Pending-Bytes')) || 0,
  };
}

/**
 * True for the statuses that close one pull request as planned: nothing (more) to deliver
 * before it expired (404, 408), the next message too big for what is left of max_bytes, or a
 * batch the server calls complete. Every other 4xx/5xx is a problem to report.
 */
export function endsRequestNormally({ code, description }: PullStatus): boolean {
  if (code === 404 || code === 408) return true;
  const text = description.toLowerCase();
  return code === 409 && (text === 'message size exceeds maxbytes' || text === 'batch completed');
}

/** 100 Idle Heartbeat: the server is there, with nothing to send. */
export const isHeartbeat = (status: PullStatus) => status.code === 100;

/** `409 Exceeded MaxWaiting`: the consumer already holds max_waiting pull requests. */
export const isMaxWaitingExceeded = (status: PullStatus) =>
  status.code === 409 && status.description.toLowerCase() === 'exceeded maxwaiting';

/**
 * `409 Server Shutdown` / `409 Leadership Change`: the server dropped the request but the
 * consumer lives on; asking again (after the reconnect) is the remedy.
 */
export function isRequestLost({ code, description }: PullStatus): boolean {
  const text = description.toLowerCase();
  return code === 409 && (text === 'server shutdown' || text === 'leadership change');
}

/** What an ended request left undelivered, as a `discard` notification; undefined for nothing. */
export function discardNotification(status: PullStatus): ConsumerNotification | undefined {
  const { pendingMessages: messagesLeft, pendingBytes: bytesLeft } = status;
  return messagesLeft > 0 || bytesLeft > 0
    ? { type: 'discard', messagesLeft, bytesLeft }
    : undefined;
}
