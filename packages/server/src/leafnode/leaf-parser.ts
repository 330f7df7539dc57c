import { decodeSubject } from '@slipstream/protocol';

/**
 * What one side of a leaf node connection reads (nats-server's parser for a LEAF connection):
 * the handshake's INFO and CONNECT, PING/PONG, +OK, -ERR, interest (`LS+ <subject> [<queue>
 * <weight>]`, `LS- <subject> [<queue>]`) and messages (`LMSG <subject> [<reply>] <size>`, with
 * queue groups `LMSG <subject> + <reply> <queue>... <size>` or `LMSG <subject> | <queue>...
 * <size>`; with headers the verb is HMSG and a header size comes before the total size).
 */
export type LeafFrame =
  | { op: 'INFO' | 'CONNECT'; json: string }
  | { op: 'PING' | 'PONG' | 'OK' }
  | { op: 'ERR'; message: string }
  | { op: 'LS+'; subject: string; queue: string | undefined; weight: number }
  | { op: 'LS-'; subject: string; queue: string | undefined }
  | {
      op: 'LMSG';
      subject: string;
      reply: string | undefined;
      queues: string[];
      headers: Uint8Array | undefined;
      payload: Uint8Array;
    };

/**
 * A line the leaf protocol does not allow. `text` is the `-ERR` nats-server answers with; it has
 * none for bad arguments of a known op (its readLoop closes without one).
 */
export class LeafProtocolError extends Error {
  constructor(
    readonly text: string | undefined,
    detail: string,
  ) {
    super(detail);
  }
}

const LF = 0x0a;
const CR = 0x0d;
/** nats-server reads sizes of at most 9 digits; a longer one is an error. */
const MAX_SIZE = 999_999_999;

interface PendingMessage {
  subject: string;
  reply: string | undefined;
  queues: string[];
  headerSize: number;
  size: number;
}

/**
 * Incremental: `parse(chunk)` hands each complete frame to `frame`, and keeps what is left for the
 * next chunk. A payload's bytes are a view into the chunk (or into the one buffer a split payload
 * is gathered in): copy what must outlive the call. Throws LeafProtocolError on a bad line.
 */
export class LeafParser {
  #pending: Uint8Array | undefined;
  #message: PendingMessage | undefined;

  constructor(
    readonly frame: (frame: LeafFrame) => void,
    /** Longest control line accepted; INFO and CONNECT of servers can be long. */
    readonly maxLine: number,
    readonly maxPayload: number,
  ) {}

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
          throw new LeafProtocolError('Unknown Protocol Operation', 'message not ended by CRLF');
        }
        this.#message = undefined;
        const headers =
          message.headerSize > 0 ? bytes.subarray(at, at + message.headerSize) : undefined;
        this.frame({
          op: 'LMSG',
          subject: message.subject,
          reply: message.reply,
          queues: message.queues,
          headers,
          payload: bytes.subarray(at + message.headerSize, end),
        });
        at = end + 2;
        continue;
      }
      const newline = bytes.indexOf(LF, at);
      if (newline < 0) {
        if (bytes.length - at > this.maxLine) {
          throw new LeafProtocolError('Maximum Control Line Exceeded', 'control line too long');
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
      case 'LS+':
        this.frame(leafSub(rest));
        return;
      case 'LS-': {
        const args = rest.split(/[ \t]+/).filter(Boolean);
        if (args.length < 1 || args.length > 2) throw parseError('processLeafUnsub', rest);
        this.frame({ op: 'LS-', subject: args[0]!, queue: args[1] });
        return;
      }
      case 'LMSG':
      case 'HMSG':
        this.#message = this.#messageArgs(rest, verb === 'HMSG');
        return;
      default:
        throw new LeafProtocolError('Unknown Protocol Operation', `unknown operation: ${verb}`);
    }
  }

  /** nats-server's processLeafMsgArgs / processLeafHeaderMsgArgs. */
  #messageArgs(rest: string, withHeaders: boolean): PendingMessage {
    const name = withHeaders ? 'processLeafHeaderMsgArgs' : 'processLeafMsgArgs';
    const args = rest.split(/[ \t]+/).filter(Boolean);
    const sizes = withHeaders ? 2 : 1;
    if (args.length < 1 + sizes) throw parseError(name, rest);
    const subject = args[0]!;
    let reply: string | undefined;
    let queues: string[] = [];
    if (args.length === 2 + sizes) {
      reply = args[1];
    } else if (args.length > 2 + sizes) {
      const indicator = args[1];
      if (indicator === '+') reply = args[2];
      else if (indicator !== '|') {
        throw new LeafProtocolError(
          undefined,
          `${name} Bad or Missing Reply Indicator: '${indicator}'`,
        );
      }
      queues = args.slice(reply === undefined ? 2 : 3, args.length - sizes);
    }
    const size = parseSize(args[args.length - 1]!);
    const headerSize = withHeaders ? parseSize(args[args.length - 2]!) : 0;
    if (size < 0 || headerSize < 0 || headerSize > size) throw parseError(name, rest);
    if (size > this.maxPayload) {
      throw new LeafProtocolError('Maximum Payload Violation', `payload of ${size} bytes`);
    }
    return { subject, reply, queues, headerSize, size };
  }
}

function leafSub(rest: string): LeafFrame {
  const args = rest.split(/[ \t]+/).filter(Boolean);
  if (args.length === 1) return { op: 'LS+', subject: args[0]!, queue: undefined, weight: 1 };
  if (args.length === 3) {
    const weight = parseSize(args[2]!);
    return { op: 'LS+', subject: args[0]!, queue: args[1], weight: weight > 0 ? weight : 1 };
  }
  throw parseError('processLeafSub', rest);
}

/** A size as nats-server's parseSize: decimal digits only, at most 9; -1 otherwise. */
function parseSize(text: string): number {
  if (!/^\d{1,9}$/.test(text)) return -1;
  const value = Number(text);
  return value <= MAX_SIZE ? value : -1;
}

function parseError(name: string, rest: string): LeafProtocolError {
  return new LeafProtocolError(undefined, `${name} Parse Error: '${rest}'`);
}
