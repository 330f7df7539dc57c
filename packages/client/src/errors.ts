/**
 * Every error the client raises is a `NatsError` with a stable `code`; the class names follow
 * nats.js v3 (`errors.TimeoutError`, ...) so `instanceof` checks port over unchanged.
 */
export type NatsErrorCode =
  | 'CONNECTION_CLOSED'
  | 'CONNECTION_DRAINING'
  | 'CONNECTION_FAILED'
  | 'TIMEOUT'
  | 'NO_RESPONDERS'
  | 'REQUEST_FAILED'
  | 'PERMISSIONS_VIOLATION'
  | 'AUTHORIZATION_VIOLATION'
  | 'AUTHENTICATION_EXPIRED'
  | 'MAX_PAYLOAD_EXCEEDED'
  | 'SLOW_CONSUMER'
  | 'STALE_CONNECTION'
  | 'RECONNECT_BUFFER_FULL'
  | 'OUTBOUND_BUFFER_FULL'
  | 'INVALID_SUBJECT'
  | 'INVALID_ARGUMENT'
  | 'INVALID_OPERATION'
  | 'PROTOCOL_ERROR'
  | 'SERVER_ERROR';

export class NatsError extends Error {
  readonly code: NatsErrorCode;

  constructor(code: NatsErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.code = code;
    this.name = new.target.name;
  }
}

/** The connection is closed; nothing more can be sent. */
export class ClosedConnectionError extends NatsError {
  constructor(options?: ErrorOptions) {
    super('CONNECTION_CLOSED', 'closed connection', options);
  }
}

/** The connection is draining: no new subscriptions or requests. */
export class DrainingConnectionError extends NatsError {
  constructor() {
    super('CONNECTION_DRAINING', 'connection draining');
  }
}

/** No server could be reached or the connection broke for good; `cause` says why. */
export class ConnectionError extends NatsError {
  constructor(message: string, options?: ErrorOptions) {
    super('CONNECTION_FAILED', message, options);
  }
}

export class TimeoutError extends NatsError {
  constructor(options?: ErrorOptions) {
    super('TIMEOUT', 'timeout', options);
  }
}

/** A request failed; `isNoResponders()` as in nats.js. */
export class RequestError extends NatsError {
  constructor(message: string, options?: ErrorOptions, code: NatsErrorCode = 'REQUEST_FAILED') {
    super(code, message, options);
  }

  isNoResponders(): boolean {
    return this instanceof NoRespondersError || this.cause instanceof NoRespondersError;
  }
}

/**
 * Nobody is subscribed to the request subject (the server answered 503). Unlike nats.js, which
 * wraps it in a RequestError, this error is itself a RequestError, so both checks work.
 */
export class NoRespondersError extends RequestError {
  readonly subject: string;

  constructor(subject: string) {
    super(`no responders: '${subject}'`, undefined, 'NO_RESPONDERS');
    this.subject = subject;
  }
}

/** The server refused a publish or subscription (`-ERR 'Permissions Violation ...'`). */
export class PermissionViolationError extends NatsError {
  readonly operation: 'publish' | 'subscription';
  readonly subject: string;
  readonly queue: string | undefined;

  constructor(
    message: string,
    operation: 'publish' | 'subscription',
    subject: string,
    queue?: string,
  ) {
    super('PERMISSIONS_VIOLATION', message);
    this.operation = operation;
    this.subject = subject;
    this.queue = queue;
  }
}

/** Credentials were refused (`Authorization Violation`, `Authentication Timeout`, account expired). */
export class AuthorizationError extends NatsError {
  constructor(message: string) {
    super('AUTHORIZATION_VIOLATION', message);
  }
}

/** The user's JWT expired or was revoked. */
export class UserAuthenticationExpiredError extends NatsError {
  constructor(message: string) {
    super('AUTHENTICATION_EXPIRED', message);
  }
}

export class MaxPayloadExceededError extends NatsError {
  constructor(size: number, max: number) {
    super(
      'MAX_PAYLOAD_EXCEEDED',
      `message of ${size} bytes exceeds the server's max_payload of ${max}`,
    );
  }
}

/** A subscription's pending limit was reached and messages were dropped. */
export class SlowConsumerError extends NatsError {
  constructor(subject: string, dropped: number) {
    super('SLOW_CONSUMER', `slow consumer on '${subject}': ${dropped} message(s) dropped`);
  }
}

export class StaleConnectionError extends NatsError {
  constructor() {
    super('STALE_CONNECTION', 'stale connection: the server did not answer pings');
  }
}

/** Publishing while disconnected would overflow the reconnect buffer (`reconnectBufSize`). */
export class ReconnectBufferFullError extends NatsError {
  constructor(limit: number) {
    super('RECONNECT_BUFFER_FULL', `reconnect buffer full (${limit} bytes): message not published`);
  }
}

/** The socket cannot keep up and `outboundBufSize` bytes are already waiting: message not published. */
export class OutboundBufferFullError extends NatsError {
  constructor(limit: number) {
    super(
      'OUTBOUND_BUFFER_FULL',
      `outbound buffer full (${limit} bytes waiting for the socket): message not published`,
    );
  }
}

export class InvalidSubjectError extends NatsError {
  constructor(subject: string) {
    super('INVALID_SUBJECT', `illegal subject: '${subject}'`);
  }
}

export class InvalidArgumentError extends NatsError {
  constructor(message: string, options?: ErrorOptions) {
    super('INVALID_ARGUMENT', message, options);
  }
}

/** The call does not fit the object's state (e.g. iterating a callback subscription). */
export class InvalidOperationError extends NatsError {
  constructor(message: string) {
    super('INVALID_OPERATION', message);
  }
}

/** The server sent something the client cannot parse, or broke the protocol. */
export class ProtocolViolationError extends NatsError {
  constructor(message: string, options?: ErrorOptions) {
    super('PROTOCOL_ERROR', message, options);
  }
}

/** Any other `-ERR` from the server. */
export class ServerError extends NatsError {
  constructor(message: string) {
    super('SERVER_ERROR', message);
  }
}

/** The error classes under one name, as nats.js exports them. */
export const errors = {
  AuthorizationError,
  ClosedConnectionError,
  ConnectionError,
  DrainingConnectionError,
  InvalidArgumentError,
  InvalidOperationError,
  InvalidSubjectError,
  MaxPayloadExceededError,
  NatsError,
  NoRespondersError,
  OutboundBufferFullError,
  PermissionViolationError,
  ProtocolViolationError,
  ReconnectBufferFullError,
  RequestError,
  ServerError,
  SlowConsumerError,
  StaleConnectionError,
  TimeoutError,
  UserAuthenticationExpiredError,
};
