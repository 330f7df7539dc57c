import { decodeSubject } from '@slipstream/protocol';

/**
 * What one side of a route reads (nats-server's parser for a ROUTER connection, route protocol
 * v2): the handshake's INFO and CONNECT, PING/PONG, +OK, -ERR, interest per account
 * (`RS+ <account> <subject> [<queue> <weight>]`, `RS- <account> <subject> [<queue>]`) and
 * messages (`RMSG <account> <subject> [<reply>] <size>`, with queue groups
 * `RMSG <account> <subject> + <reply> <queue>... <size>` or `... | <queue>... <size>`; with
 * headers the verb is HMSG and a header size comes before the total size). We never announce
 * `lnoc`, so a peer sends no LS+/LMSG with a leaf origin.
 */
export type RouteFrame =
  | { op: 'INFO' | 'CONNECT'; json: string }
  | { op: 'PING' | 'PONG' | 'OK' }
  | { op: 'ERR'; message: string }
  | { op: 'RS+'; account: string; subject: string; queue: string | undefined; weight: number }
  | { op: 'RS-'; account: string; subject: string; queue: string | undefined }
  | {
      op: 'RMSG';
      account: string;
      subject: string;
      reply: string | undefined;
      queues: string[];
      headers: Uint8Array | undefined;
      payload: Uint8Array;
    };

/**
 * A line the route protocol does not allow. `text` is the `-ERR` nats-server answers with; it has
 * none for bad arguments of a known op (its readLoop closes without one).
 */
export class RouteProtocolError extends Error {
  constructor(
    readonly text: string | undefined,
    detail: string,
  ) {
    super(detail);
  }
}

const LF = 0x0a;
const CR = 0x0d;

interface PendingMessage {
  account: string;
  subject: string;
  reply: string | undefined;
  queues: string[];
  headerSize: number;
  size: number;
}

/**
 * Incremental: `parse(chunk)` hands each complete frame to `frame` and keeps what is left for the
 * next chunk. A payload is a view into the chunk (or the buffer a split one is gathered in): copy
 * what must outlive the call. Throws RouteProtocolError on a bad line.
 */
export class RouteParser {
  #pending: Uint8Array | undefined;
  #message: PendingMessage | undefined;

  constructor(
    readonly frame: (frame: RouteFrame) => void,
    /** Longest control line accepted; INFO of servers with many URLs can be long. */
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
          throw new RouteProtocolError('Unknown Protocol Operation', 'message not ended by CRLF');
        }
        this.#message = undefined;
        this.frame({
          op: 'RMSG',
          account: message.account,
          subject: message.subject,
          reply: message.reply,
          queues: message.queues,
          headers: message.headerSize > 0 ? bytes.subarray(at, at + message.headerSize) : undefined,
          payload: bytes.subarray(at + message.headerSize, end),
        });
        at = end + 2;
        continue;
      }
      const newline = bytes.indexOf(LF, at);
      if (newline < 0) {
        if (bytes.length - at > this.maxLine) {
          throw new RouteProtocolError('Maximum Control Line Exceeded', 'control line too long');
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
    const args = () => rest.split(/[ \t]+/).filter(Boolean);
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
      case 'RS+': {
        const [account, subject, queue, weight] = args();
        const count = args().length;
        if (count === 2) {
          this.frame({
            op: 'RS+',
            account: account!,
            subject: subject!,
            queue: undefined,
            weight: 1,
          });
          return;
        }
        if (count !== 4) throw parseError('processRemoteSub', rest);
        const parsed = parseSize(weight!);
        this.frame({
          op: 'RS+',
          account: account!,
          subject: subject!,
          queue,
          weight: parsed > 0 ? parsed : 1,
        });
        return;
      }
      case 'RS-': {
        const parts = args();
        if (parts.length < 2 || parts.length > 3) throw parseError('processRemoteUnsub', rest);
        this.frame({ op: 'RS-', account: parts[0]!, subject: parts[1]!, queue: parts[2] });
        return;
      }
      case 'RMSG':
      case 'HMSG':
        this.#message = this.#messageArgs(args(), rest, verb === 'HMSG');
        return;
      default:
        throw new RouteProtocolError('Unknown Protocol Operation', `unknown operation: ${verb}`);
    }
  }

  /** nats-server's processRoutedMsgArgs / processRoutedHeaderMsgArgs. */
  #messageArgs(args: string[], rest: string, withHeaders: boolean): PendingMessage {
    const name = withHeaders ? 'processRoutedHeaderMsgArgs' : 'processRoutedMsgArgs';
    const sizes = withHeaders ? 2 : 1;
    if (args.length < 2 + sizes) throw parseError(name, rest);
    const [account, subject] = args as [string, string];
    let reply: string | undefined;
    let queues: string[] = [];
    if (args.length === 3 + sizes) {
      reply = args[2];
    } else if (args.length > 3 + sizes) {
      const indicator = args[2];
      if (indicator === '+') reply = args[3];
      else if (indicator !== '|') {
        throw new RouteProtocolError(
          undefined,
          `${name} Bad or Missing Reply Indicator: '${indicator}'`,
        );
      }
      queues = args.slice(reply === undefined ? 3 : 4, args.length - sizes);
    }
    const size = parseSize(args[args.length - 1]!);
    const headerSize = withHeaders ? parseSize(args[args.length - 2]!) : 0;
    if (size < 0 || headerSize < 0 || headerSize > size) throw parseError(name, rest);
    if (size > this.maxPayload) {
      throw new RouteProtocolError('Maximum Payload Violation', `payload of ${size} bytes`);
    }
    return { account, subject, reply, queues, headerSize, size };
  }
}

/** A size as nats-server's parseSize: decimal digits only, at most 9; -1 otherwise. */
function parseSize(text: string): number {
  return /^\d{1,9}$/.test(text) ? Number(text) : -1;
}

function parseError(name: string, rest: string): RouteProtocolError {
  return new RouteProtocolError(undefined, `${name} Parse Error: '${rest}'`);
}
