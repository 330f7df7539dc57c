import { goQuote } from './go-quote.js';

/**
 * The exact texts nats-server 2.9.10 puts inside `-ERR '…'`, and the close reasons it shows in
 * /connz. Clients match on these strings, so they are copied byte for byte from the reference
 * tables (shared/reference/wire-protocol.md §7, defaults-and-limits.md §2).
 */
export const ErrText = {
  unknownOperation: 'Unknown Protocol Operation',
  maxPayload: 'Maximum Payload Violation',
  maxControlLine: 'maximum control line exceeded',
  authorizationViolation: 'Authorization Violation',
  authenticationTimeout: 'Authentication Timeout',
  authenticationExpired: 'User Authentication Expired',
  authenticationRevoked: 'User Authentication Revoked',
  staleConnection: 'Stale Connection',
  maxConnections: 'maximum connections exceeded',
  maxSubscriptions: 'maximum subscriptions exceeded',
  maxAccountConnections: 'maximum account active connections exceeded',
  invalidSubject: 'Invalid Subject',
  invalidPublishSubject: 'Invalid Publish Subject',
  invalidClientProtocol: 'invalid client protocol',
  noRespondersRequiresHeaders: 'no responders requires headers support',
  publishViolation: (subject: string) => `Permissions Violation for Publish to ${goQuote(subject)}`,
  subscriptionViolation: (subject: string) =>
    `Permissions Violation for Subscription to ${goQuote(subject)}`,
  replyViolation: (reply: string) =>
    `Permissions Violation for Publish with Reply of ${goQuote(reply)}`,
  queueViolation: (subject: string, queue: string) =>
    `Permissions Violation for Subscription to ${goQuote(subject)} using queue ${goQuote(queue)}`,
} as const;

/** Why a connection ended, as /connz?state=closed reports it. */
export type CloseReason =
  | 'Client Closed'
  | 'Authentication Timeout'
  | 'Authentication Expired'
  | 'Authentication Failure'
  | 'TLS Handshake Failure'
  | 'Slow Consumer (Pending Bytes)'
  | 'Slow Consumer (Write Deadline)'
  | 'Write Error'
  | 'Read Error'
  | 'Parse Error'
  | 'Stale Connection'
  | 'Protocol Violation'
  | 'Bad Client Protocol Version'
  | 'Maximum Connections Exceeded'
  | 'Maximum Account Connections Exceeded'
  | 'Maximum Subscriptions Exceeded'
  | 'Credentials Revoked'
  | 'Maximum Message Payload Exceeded'
  | 'Maximum Control Line Exceeded'
  | 'No Responders Requires Headers'
  | 'Server Shutdown';

export type ServerErrorCode = 'INVALID_OPTION' | 'LISTEN_FAILED';

/** A failure of the server itself (bad options, port taken), never of a client. */
export class ServerError extends Error {
  override readonly name = 'ServerError';
  constructor(
    readonly code: ServerErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
