import { decodeSubject } from '@slipstream/protocol';

/** The frames routes and leaf node connections read alike: the handshake, PING/PONG, +OK, -ERR. */
export type ControlFrame =
  | { op: 'INFO' | 'CONNECT'; json: string }
  | { op: 'PING' | 'PONG' | 'OK' }
  | { op: 'ERR'; message: string };

/**
 * A line a route or leaf node connection may not send. `text` is the `-ERR` nats-server answers
 * with; it has none for bad arguments of a known op (its readLoop closes without one).
 */
export class InterserverProtocolError extends Error {
  constructor(
    readonly text: string | undefined,
    detail: string,
  ) {
    super(detail);
  }
}

/**
 * A message's control line: the names before the reply (account and subject on a route, the
 * subject alone on a leaf connection), the reply, the queue groups and the sizes of what follows.
 */
export interface MessageArgs {
  names: string[];
  reply: string | undefined;
  queues: string[];
  headerSize: number;
  size: number;
}

const LF = 0x0a;
const CR = 0x0d;

/**
 * Incremental reader of a server-to-server connection (nats-server's parser for a ROUTER or LEAF
 * connection): `parse(chunk)` hands each complete frame to `frame` and keeps what is left for the
 * next chunk. The ops of one protocol are the subclass's (`line`, `message`). A payload is a view
 * into the chunk (or the buffer a split one is gathered in): copy what must outlive the call.
 * Throws InterserverProtocolError on a bad line.
 */
export abstract class FrameReader<F> {
  #pending: Uint8Array | undefined;
  #message: MessageArgs | undefined;

  constructor(
    readonly frame: (frame: F | ControlFrame) => void,
    /** Longest control line accepted; INFO and CONNECT of servers with many URLs can be long. */
    readonly maxLine: number,
    readonly maxPayload: number,
  ) {}

  /** A line of this protocol's own `verb`: frames it, or returns the arguments of a message. */
  protected abstract line(verb: string, rest: string): MessageArgs | undefined;

  /** The frame of a message whose body has come. */
  protected abstract message(
    args: MessageArgs,
    headers: Uint8Array | undefined,
    payload: Uint8Array,
  ): F;

  parse(chunk: Uint8Array): void {
    let bytes = chunk;
    if (this.#pending) {
      bytes = Buffer.concat([this.#pending, chunk]);
      this.#pending = undefined;
    }
    let at = 0;
    while (at < bytes.length) {
      const message = this.#message;
      if (message) {
        const end = at + message.size;
        if (end + 2 > bytes.length) break;
        if (bytes[end] !== CR || bytes[end + 1] !== LF) {
          throw new InterserverProtocolError(
            'Unknown Protocol Operation',
            'message not ended by CRLF',
          );
        }
        this.#message = undefined;
        const headers =
          message.headerSize > 0 ? bytes.subarray(at, at + message.headerSize) : undefined;
        this.frame(this.message(message, headers, bytes.subarray(at + message.headerSize, end)));
        at = end + 2;
        continue;
      }
      const newline = bytes.indexOf(LF, at);
      if (newline < 0) {
        if (bytes.length - at > this.maxLine) {
          throw new InterserverProtocolError(
            'Maximum Control Line Exceeded',
            'control line too long',
          );
        }
        break;
      }
      const lineEnd = newline > at && bytes[newline - 1] === CR ? newline - 1 : newline;
      const line = decodeSubject(bytes, at, lineEnd);
      at = newline + 1;
      this.#line(line);
    }
    if (at < bytes.length) this.#pending = bytes.subarray(at);
  }

  #line(line: string): void {
    const space = line.search(/[ \t]/);
    const verb = (space < 0 ? line : line.slice(0, space)).toUpperCase();
    const rest = space < 0 ? '' : line.slice(space + 1).trim();
    switch (verb) {
      case 'INFO':
      case 'CONNECT':
        this.frame({ op: verb, json: rest });
        return;
      case 'PING':
      case 'PONG':
        this.frame({ op: verb });
        return;
      case '+OK':
        this.frame({ op: 'OK' });
        return;
      case '-ERR':
        this.frame({ op: 'ERR', message: rest.replace(/^'(.*)'$/, '$1') });
        return;
      default:
        this.#message = this.line(verb, rest);
    }
  }

  /**
   * The arguments of a message line (nats-server's processRoutedMsgArgs, processLeafMsgArgs and
   * their header versions, called `name` in errors): `names` names, then `<reply>`, or
   * `+ <reply> <queue>...` or `| <queue>...`, then the header size (`withHeaders`) and the size.
   */
  protected messageArgs(rest: string, names: number, withHeaders: boolean, name: string) {
    const args = splitArgs(rest);
    const sizes = withHeaders ? 2 : 1;
    if (args.length < names + sizes) throw parseError(name, rest);
    let reply: string | undefined;
    let queues: string[] = [];
    if (args.length === names + 1 + sizes) {
      reply = args[names];
    } else if (args.length > names + 1 + sizes) {
      const indicator = args[names];
      if (indicator === '+') reply = args[names + 1];
      else if (indicator !== '|') {
        throw new InterserverProtocolError(
          undefined,
          `${name} Bad or Missing Reply Indicator: '${indicator}'`,
        );
      }
      queues = args.slice(reply === undefined ? names + 1 : names + 2, args.length - sizes);
    }
    const size = parseSize(args[args.length - 1]!);
    const headerSize = withHeaders ? parseSize(args[args.length - 2]!) : 0;
    if (size < 0 || headerSize < 0 || headerSize > size) throw parseError(name, rest);
    if (size > this.maxPayload) {
      throw new InterserverProtocolError('Maximum Payload Violation', `payload of ${size} bytes`);
    }
    return { names: args.slice(0, names), reply, queues, headerSize, size };
  }
}

/** The arguments of a control line, split at spaces and tabs. */
export function splitArgs(rest: string): string[] {
  return rest.split(/[ \t]+/).filter(Boolean);
}

/** A size as nats-server's parseSize: decimal digits only, at most 9; -1 otherwise. */
export function parseSize(text: string): number {
  return /^\d{1,9}$/.test(text) ? Number(text) : -1;
}

export function parseError(name: string, rest: string): InterserverProtocolError {
  return new InterserverProtocolError(undefined, `${name} Parse Error: '${rest}'`);
}

export function unknownOperation(verb: string): InterserverProtocolError {
  return new InterserverProtocolError('Unknown Protocol Operation', `unknown operation: ${verb}`);
}
