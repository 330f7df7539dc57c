/** What a peer did wrong on the wire. Every code closes the connection. */
export type ProtocolErrorCode =
  /** An op the receiving side does not accept, or garbage where an op should start. */
  | 'UNKNOWN_OPERATION'
  /** The argument text of a control line is longer than `maxControlLine`. */
  | 'MAX_CONTROL_LINE'
  /** A declared message size is larger than `maxPayload`. */
  | 'MAX_PAYLOAD'
  /** Wrong number of arguments for the op. */
  | 'MALFORMED_ARGUMENTS'
  /** A size that is not 1 to 9 decimal digits. */
  | 'INVALID_SIZE'
  /** An HPUB/HMSG header size larger than its total size. */
  | 'HEADER_SIZE'
  /** The bytes after a payload are not exactly `\r\n` (the declared size was wrong). */
  | 'PAYLOAD_TERMINATOR';

const SERVER_ERROR_TEXT: Record<ProtocolErrorCode, string | undefined> = {
  UNKNOWN_OPERATION: 'Unknown Protocol Operation',
  MAX_CONTROL_LINE: 'maximum control line exceeded',
  MAX_PAYLOAD: 'Maximum Payload Violation',
  MALFORMED_ARGUMENTS: undefined,
  INVALID_SIZE: undefined,
  HEADER_SIZE: undefined,
  PAYLOAD_TERMINATOR: 'Unknown Protocol Operation',
};

export interface ProtocolErrorOptions extends ErrorOptions {
  /**
   * Overrides the -ERR text implied by the code; pass `undefined` to close silently
   * (nats-server closes without -ERR when a client sends `-ERR`).
   */
  serverErrorText?: string | undefined;
}

/**
 * A protocol violation found by a parser. A parser that reported one is finished: it ignores
 * all further input, just as nats-server closes the connection.
 */
export class ProtocolError extends Error {
  override readonly name = 'ProtocolError';
  readonly code: ProtocolErrorCode;
  /**
   * The text nats-server puts inside `-ERR '…'` for this violation before closing, or
   * `undefined` when nats-server closes without a word.
   */
  readonly serverErrorText: string | undefined;

  constructor(code: ProtocolErrorCode, message: string, options?: ProtocolErrorOptions) {
    super(message, options);
    this.code = code;
    this.serverErrorText =
      options !== undefined && 'serverErrorText' in options
        ? options.serverErrorText
        : SERVER_ERROR_TEXT[code];
  }
}
