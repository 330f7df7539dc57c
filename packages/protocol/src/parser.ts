import * as grammar from './control-line.js';
import type { ClientFrame, ServerFrame } from './ops.js';
import { ProtocolError, type ProtocolErrorCode } from './protocol-error.js';
import * as subjectCache from './subject-cache.js';
import { decodeSubject, decodeUtf8 } from './utf8.js';

// Module-local copies of the grammar's op ids, masks and helpers: V8 (Node 20) does not
// constant-fold imported bindings, and reading the op ids through the import on every frame cost
// 10-15 % of parse throughput (same-process A/B against the parser before the split).
const {
  BARE,
  CLIENT_SIDE_OPS,
  CONNECT,
  classify,
  ERR,
  HMSG,
  HPUB,
  isBlank,
  MSG,
  NAMES,
  NEED_MORE,
  PING,
  PONG,
  PUB,
  parseSize,
  SERVER_SIDE_OPS,
  SPACE,
  SUB,
  snippet,
  TAB,
  UNKNOWN,
  UNSUB,
  unquote,
  VERB_WINDOW,
  VERBS,
} = grammar;
const { cachedSubject, SUBJECT_HASH_PRIME, SUBJECT_HASH_SEED } = subjectCache;

export interface ParserOptions {
  /**
   * Longest argument text of a control line, in bytes: what follows the op and its separating
   * whitespace, up to the line end (nats-server's `max_control_line`). Default 4096.
   */
  maxControlLine?: number;
  /** Largest declared message size (headers + payload), in bytes. Default 1 MiB. */
  maxPayload?: number;
}

/**
 * Receives what a parser finds, in input order. After `error` nothing more is delivered.
 * A sink should not throw: an exception propagates out of `parse()` and the rest of that chunk
 * is lost, so the stream position is too; treat the connection as broken.
 */
export interface FrameSink<F> {
  frame(frame: F): void;
  error(error: ProtocolError): void;
}

/**
 * What a server-side sink may add to take PUB and HPUB without a frame object: the parser then
 * calls `publish` instead of `frame` for them, with the message's bytes as offsets into `bytes`
 * (the chunk given to `parse()`, or the buffer a message spanning chunks was assembled in):
 * the header block is `bytes[start, headersEnd)` (empty for PUB and for an HPUB with a
 * zero-length block), the payload `bytes[headersEnd, end)`. A receiver that drops or only counts
 * a message never needs a view of it, so a publish nobody listens to allocates nothing. The
 * same rules as for a frame's views apply to `bytes` (see ops.ts).
 */
export interface PublishSink {
  publish(
    subject: string,
    reply: string | undefined,
    bytes: Uint8Array,
    start: number,
    headersEnd: number,
    end: number,
    hpub: boolean,
  ): void;
}

export const DEFAULT_MAX_CONTROL_LINE = 4096;
export const DEFAULT_MAX_PAYLOAD = 1024 * 1024;

const LF = 0x0a;
const CR = 0x0d;

/** The partial-line buffer may exceed maxControlLine by the verb and a trailing CR. */
const LINE_SLACK = VERB_WINDOW + 8;
const INITIAL_LINE_CAPACITY = 128;
const MAX_ARGS = 5;
/** Longest subject plainPub() compares with the one before instead of looking it up. */
const MAX_REPEATED_SUBJECT = 64;
/** Ops whose arguments are split into fields: their lines are scanned in one pass. */
const FIELD_OPS = (1 << PUB) | (1 << HPUB) | (1 << MSG) | (1 << HMSG) | (1 << SUB) | (1 << UNSUB);

// Parser modes.
const LINE = 0; // at the start of a control line, nothing held
const PARTIAL = 1; // holding the start of a control line that has no LF yet
const SKIP = 2; // PING/PONG/+OK seen, discarding the rest of its line
const BODY = 3; // assembling a payload that spans chunks
const DEAD = 4; // reported a ProtocolError

// controlLine() results.
const DONE = 0;
const NEEDS_BODY = 1;
const FAILED = 2;

const PING_FRAME = Object.freeze({ op: 'PING' as const });
const PONG_FRAME = Object.freeze({ op: 'PONG' as const });
const OK_FRAME = Object.freeze({ op: 'OK' as const });
const EMPTY = new Uint8Array(0);

/**
 * The incremental NATS protocol parser shared by both directions. Feed it chunks as they
 * arrive, split anywhere; it calls the sink once per frame, in order.
 */
export abstract class ProtocolParser<F extends ClientFrame | ServerFrame> {
  /** See {@link ParserOptions.maxControlLine}. May be changed at any time. */
  maxControlLine: number;
  /** See {@link ParserOptions.maxPayload}. May be changed at any time. */
  maxPayload: number;

  private readonly sink: FrameSink<F>;
  /** The sink, when it takes PUB and HPUB through {@link PublishSink} (server side only). */
  private readonly publishSink: PublishSink | undefined;
  private readonly accepts: number;
  private readonly serverSide: boolean;
  private mode = LINE;

  // The start of a control line with no LF yet: its verb, one space, then its arguments
  // (whitespace between verb and arguments is dropped so it cannot pile up).
  private line: Uint8Array = EMPTY;
  private lineLength = 0;
  private lineOp = NEED_MORE;
  private skipOp = NEED_MORE;

  // The message whose control line has been read.
  private subject = '';
  private sid = '';
  private reply: string | undefined = undefined;
  private headerSize = 0;
  private totalSize = 0;
  private hpub = false;
  // Set while a payload spans chunks: it is assembled here, then its CRLF is checked.
  private body: Uint8Array | undefined = undefined;
  private bodyFilled = 0;
  private terminatorSeen = 0;

  // What scanFields() found in the control line being decoded: its fields' boundaries (the
  // first MAX_ARGS + 1 of them), how many there were, whether all were ASCII, and the first
  // field's hash and ASCII-ness (it is a message's subject; see subject-cache.ts).
  // The subject plainPub() read twice in a row, kept to compare the next one with: a publisher
  // mostly repeats its subject, and comparing its bytes costs less than hashing them and looking
  // them up. repeatLength 0: none (after a different subject, until one repeats again).
  private readonly repeatBytes = new Uint8Array(MAX_REPEATED_SUBJECT);
  private repeatLength = 0;
  private repeatSubject = '';
  private previousSubject = '';

  private readonly argStart = new Int32Array(MAX_ARGS + 1);
  private readonly argEnd = new Int32Array(MAX_ARGS + 1);
  private argCount = 0;
  private argsAscii = true;
  private firstHash = 0;
  private firstAscii = true;

  protected constructor(
    sink: FrameSink<F>,
    options: ParserOptions | undefined,
    serverSide: boolean,
  ) {
    this.sink = sink;
    this.serverSide = serverSide;
    this.publishSink =
      serverSide && typeof (sink as Partial<PublishSink>).publish === 'function'
        ? (sink as unknown as PublishSink)
        : undefined;
    this.accepts = serverSide ? SERVER_SIDE_OPS : CLIENT_SIDE_OPS;
    this.maxControlLine = options?.maxControlLine ?? DEFAULT_MAX_CONTROL_LINE;
    this.maxPayload = options?.maxPayload ?? DEFAULT_MAX_PAYLOAD;
  }

  /**
   * Parses a whole stream at once: every frame, then the error if there was one. Called on a
   * side's parser (`ServerSideParser.parseAll(chunks)`).
   */
  static parseAll<F extends ClientFrame | ServerFrame>(
    this: new (
      sink: FrameSink<F>,
      options?: ParserOptions,
    ) => ProtocolParser<F>,
    chunks: Iterable<Uint8Array>,
    options?: ParserOptions,
  ): (F | ProtocolError)[] {
    const out: (F | ProtocolError)[] = [];
    const parser = new this(
      { frame: (frame) => out.push(frame), error: (error) => out.push(error) },
      options,
    );
    for (const chunk of chunks) parser.parse(chunk);
    return out;
  }

  /** Bytes of incomplete input the parser holds: a partial control line or payload. */
  get bufferedBytes(): number {
    return this.lineLength + (this.body === undefined ? 0 : this.body.length);
  }

  /** True once a ProtocolError has been reported; all later input is ignored. */
  get failed(): boolean {
    return this.mode === DEAD;
  }

  /** Parses the next chunk of the stream. */
  parse(input: Uint8Array): void {
    // Frames hand out subarrays of the chunk. A subarray of a Node Buffer goes through Buffer's
    // own constructor and costs twice that of a plain Uint8Array's, once per message: parse a
    // plain view of the same bytes. Line ends are still searched in `input`: Buffer's indexOf
    // is a memchr, Uint8Array's a slower walk through the runtime.
    const chunk =
      input.constructor === Uint8Array
        ? input
        : new Uint8Array(input.buffer, input.byteOffset, input.byteLength);
    let pos = 0;
    switch (this.mode) {
      case LINE:
        break;
      case PARTIAL:
        pos = this.continueLine(chunk);
        break;
      case SKIP:
        pos = this.continueSkip(chunk);
        break;
      case BODY:
        pos = this.continueBody(chunk);
        break;
      default:
        return;
    }
    const end = chunk.length;
    // Only a server reads PUB; `PUB ` is 0x50 0x55 0x42 and a space.
    const plainPubs = this.serverSide;
    while (pos >= 0 && pos < end) {
      if (
        plainPubs &&
        chunk[pos] === 0x50 &&
        pos + 4 < end &&
        chunk[pos + 1] === 0x55 &&
        chunk[pos + 2] === 0x42 &&
        chunk[pos + 3] === SPACE
      ) {
        const next = this.plainPub(chunk, pos + 4, end);
        if (next >= 0) {
          pos = next;
          continue;
        }
      }
      const op = classify(chunk, pos, end);
      let lf: number;
      let result: number;
      if (op > 0 && (FIELD_OPS & this.accepts & (1 << op)) !== 0) {
        // PUB, MSG and the like: one pass finds the fields and the line end. The line is short,
        // and scanning it here costs less than a call out to memchr and a second scan.
        const argsAt = pos + VERBS[op].length;
        lf = this.scanFields(chunk, argsAt, end);
        if (lf === end) {
          this.mode = PARTIAL;
          this.appendLine(chunk, pos, end);
          return;
        }
        result = this.fieldLine(op, chunk, argsAt, chunk[lf - 1] === CR ? lf - 1 : lf);
      } else {
        // Anything else (PING, CONNECT, an error) is found by its LF, then decoded as a line.
        lf = input.indexOf(LF, pos);
        if (lf < 0) {
          this.mode = PARTIAL;
          this.appendLine(chunk, pos, end);
          return;
        }
        result = this.controlLine(chunk, pos, lf > pos && chunk[lf - 1] === CR ? lf - 1 : lf);
      }
      if (result === FAILED) return;
      pos = result === NEEDS_BODY ? this.startBody(chunk, lf + 1) : lf + 1;
    }
  }

  /**
   * The usual PUB, written the way clients write it, read without the general path's steps:
   * `PUB subject [reply] size` in upper case with single spaces, ASCII, CRLF, and its payload
   * and CRLF inside this chunk. `at` is just past `PUB `. Returns where the next line starts, or
   * -1 for anything else (a tab, a bad size, a limit exceeded, a payload that runs past the
   * chunk...), which the general path then reads from the line's start as if this had not
   * looked: nothing is changed before the line is known to be of this form.
   */
  private plainPub(chunk: Uint8Array, at: number, end: number): number {
    let i = at;
    let byte = 0;
    let bits = 0;
    let hash = SUBJECT_HASH_SEED;
    const repeatLength = this.repeatLength;
    // Only when the chunk holds the whole subject and the space after it: a read past a typed
    // array's end gives undefined, and once the comparison below had seen one, V8 compiled it
    // as a call for every byte (a publish of 16 B cost 45 ns to parse instead of 28).
    if (repeatLength > 0 && at + repeatLength < end) {
      const repeat = this.repeatBytes;
      let k = 0;
      while (k < repeatLength && chunk[at + k] === repeat[k]) k++;
      if (k === repeatLength && chunk[at + k] === SPACE) i = at + k;
      // Another subject: look subjects up until one repeats again.
      else this.repeatLength = 0;
    }
    const repeated = i > at;
    if (repeated) byte = SPACE;
    else {
      while (i < end && (byte = chunk[i]) > SPACE) {
        bits |= byte;
        hash = Math.imul(hash ^ byte, SUBJECT_HASH_PRIME);
        i++;
      }
      if (i === at || byte !== SPACE || i === end) return -1;
    }
    const subjectEnd = i;
    let fieldStart = ++i;
    while (i < end && (byte = chunk[i]) > SPACE) bits |= chunk[i++];
    let replyEnd = -1;
    if (byte === SPACE && i > fieldStart) {
      replyEnd = i;
      fieldStart = ++i;
      while (i < end && (byte = chunk[i]) > SPACE) bits |= chunk[i++];
    }
    if (i === fieldStart || byte !== CR || i + 1 >= end || chunk[i + 1] !== LF || bits >= 0x80) {
      return -1;
    }
    const size = parseSize(chunk, fieldStart, i);
    if (size < 0 || size > this.maxPayload || i - at > this.maxControlLine) return -1;
    const payloadStart = i + 2;
    const payloadEnd = payloadStart + size;
    if (payloadEnd + 2 > end || chunk[payloadEnd] !== CR || chunk[payloadEnd + 1] !== LF) return -1;
    if (repeated) this.subject = this.repeatSubject;
    else {
      const subject = cachedSubject(chunk, at, subjectEnd, hash, true);
      if (subject === this.previousSubject && subjectEnd - at <= MAX_REPEATED_SUBJECT) {
        this.repeatBytes.set(chunk.subarray(at, subjectEnd));
        this.repeatLength = subjectEnd - at;
        this.repeatSubject = subject;
      }
      this.previousSubject = subject;
      this.subject = subject;
    }
    this.reply = replyEnd < 0 ? undefined : decodeSubject(chunk, subjectEnd + 1, replyEnd, true);
    this.headerSize = 0;
    this.hpub = false;
    this.emitMessage(chunk, payloadStart, payloadEnd);
    return payloadEnd + 2;
  }

  private continueLine(chunk: Uint8Array): number {
    const lf = chunk.indexOf(LF);
    if (!this.appendLine(chunk, 0, lf < 0 ? chunk.length : lf) || lf < 0) return -1;
    if (this.mode === SKIP) return this.endSkip(lf);
    const line = this.line;
    const length = this.lineLength;
    this.mode = LINE;
    this.lineLength = 0;
    this.lineOp = NEED_MORE;
    const lineEnd = length > 0 && line[length - 1] === CR ? length - 1 : length;
    const result = this.controlLine(line, 0, lineEnd);
    if (result === FAILED) return -1;
    return result === NEEDS_BODY ? this.startBody(chunk, lf + 1) : lf + 1;
  }

  /** Holds `chunk[from, to)`, the next piece of a control line; false if that broke a rule. */
  private appendLine(chunk: Uint8Array, from: number, to: number): boolean {
    let i = from;
    if (this.lineOp === NEED_MORE) {
      if (this.line === EMPTY) this.line = new Uint8Array(INITIAL_LINE_CAPACITY);
      const line = this.line;
      while (i < to && this.lineLength < VERB_WINDOW) line[this.lineLength++] = chunk[i++];
      const op = classify(line, 0, this.lineLength);
      if (op === NEED_MORE) return true;
      if (op === UNKNOWN || (this.accepts & (1 << op)) === 0) {
        return this.rejectOp(op, line, 0, this.lineLength);
      }
      if ((BARE & (1 << op)) !== 0) {
        this.mode = SKIP;
        this.skipOp = op;
        this.lineLength = 0;
        return true;
      }
      // Keep the verb and one space, drop the whitespace run, keep any argument bytes.
      const verbLength = VERBS[op].length;
      let argsAt = verbLength;
      while (argsAt < this.lineLength && isBlank(line[argsAt])) argsAt++;
      line.copyWithin(verbLength + 1, argsAt, this.lineLength);
      line[verbLength] = SPACE;
      this.lineLength = verbLength + 1 + this.lineLength - argsAt;
      this.lineOp = op;
    }
    const argsAt = VERBS[this.lineOp].length + 1;
    if (this.lineLength === argsAt) {
      while (i < to && isBlank(chunk[i])) i++;
    }
    const count = to - i;
    const length = this.lineLength + count;
    // A CR ending what we have so far may be the line's terminator: it does not count.
    const last = count > 0 ? chunk[to - 1] : this.line[length - 1];
    const argsLength = length - argsAt - (last === CR && length > argsAt ? 1 : 0);
    if (argsLength > this.maxControlLine) {
      return this.fail(
        'MAX_CONTROL_LINE',
        `maximum control line exceeded: ${argsLength} bytes of arguments and counting, limit ${this.maxControlLine}`,
      );
    }
    if (length > this.line.length) {
      const grown = new Uint8Array(
        Math.max(length, Math.min(this.line.length * 2, this.maxControlLine + LINE_SLACK)),
      );
      grown.set(this.line.subarray(0, this.lineLength));
      this.line = grown;
    }
    this.line.set(chunk.subarray(i, to), this.lineLength);
    this.lineLength = length;
    return true;
  }

  private continueSkip(chunk: Uint8Array): number {
    const lf = chunk.indexOf(LF);
    return lf < 0 ? -1 : this.endSkip(lf);
  }

  private endSkip(lf: number): number {
    this.mode = LINE;
    this.emitBare(this.skipOp);
    return lf + 1;
  }

  private emitBare(op: number): void {
    this.sink.frame((op === PING ? PING_FRAME : op === PONG ? PONG_FRAME : OK_FRAME) as F);
  }

  /** Decodes the control line `bytes[start, end)` (line terminator excluded). */
  private controlLine(bytes: Uint8Array, start: number, end: number): number {
    const op = classify(bytes, start, end);
    if (op <= 0 || (this.accepts & (1 << op)) === 0) {
      this.rejectOp(op, bytes, start, end);
      return FAILED;
    }
    if ((BARE & (1 << op)) !== 0) {
      this.emitBare(op);
      return DONE;
    }
    const argsAt = start + VERBS[op].length;
    if ((FIELD_OPS & (1 << op)) !== 0) {
      this.scanFields(bytes, argsAt, end);
      return this.fieldLine(op, bytes, argsAt, end);
    }
    const args = this.skipBlanks(bytes, argsAt, end);
    if (args < 0) return FAILED;
    if (op === ERR) {
      this.sink.frame({ op: 'ERR', message: unquote(decodeUtf8(bytes, args, end)) } as F);
      return DONE;
    }
    // CONNECT or INFO: the JSON text, without the space nats-server puts after INFO's.
    while (end > args && isBlank(bytes[end - 1])) end--;
    this.sink.frame({
      op: op === CONNECT ? 'CONNECT' : 'INFO',
      json: decodeUtf8(bytes, args, end),
    } as F);
    return DONE;
  }

  /**
   * Where the arguments of the line `bytes[argsAt, end)` start, past the blanks after its verb;
   * -1 (after reporting it) when they are longer than maxControlLine.
   */
  private skipBlanks(bytes: Uint8Array, argsAt: number, end: number): number {
    let args = argsAt;
    while (args < end && isBlank(bytes[args])) args++;
    if (end - args <= this.maxControlLine) return args;
    this.fail(
      'MAX_CONTROL_LINE',
      `maximum control line exceeded: ${end - args} bytes of arguments, limit ${this.maxControlLine}`,
    );
    return -1;
  }

  /**
   * Splits the arguments of a line into fields at runs of space, tab or CR, from `bytes[start]`
   * up to an LF or `end`, whichever comes first, and returns where it stopped. Records what
   * the fields' decoders need (see argStart) on the way, so nothing reads the line twice.
   */
  private scanFields(bytes: Uint8Array, start: number, end: number): number {
    const starts = this.argStart;
    const ends = this.argEnd;
    let count = 0;
    let bits = 0;
    let i = start;
    let byte = 0;
    for (;;) {
      // Separators and the LF are the only bytes <= SPACE that end a field.
      while (i < end && ((byte = bytes[i]) === SPACE || byte === TAB || byte === CR)) i++;
      if (i === end || byte === LF) break;
      if (count === 0) {
        // The first field is a message's subject: hash it for the subject cache.
        let hash = SUBJECT_HASH_SEED;
        starts[0] = i;
        do {
          bits |= byte;
          hash = Math.imul(hash ^ byte, SUBJECT_HASH_PRIME);
          if (++i === end) break;
          byte = bytes[i];
        } while (byte > SPACE || (byte !== SPACE && byte !== TAB && byte !== CR && byte !== LF));
        ends[0] = i;
        this.firstHash = hash;
        this.firstAscii = bits < 0x80;
      } else {
        // Fields past MAX_ARGS + 1 are only counted: the line is malformed anyway.
        if (count <= MAX_ARGS) starts[count] = i;
        do {
          bits |= byte;
          if (++i === end) break;
          byte = bytes[i];
        } while (byte > SPACE || (byte !== SPACE && byte !== TAB && byte !== CR && byte !== LF));
        if (count <= MAX_ARGS) ends[count] = i;
      }
      count++;
    }
    this.argCount = count;
    this.argsAscii = bits < 0x80;
    return i;
  }

  /** Decodes the fields scanFields found in the line `bytes[argsAt, end)` of `op`. */
  private fieldLine(op: number, bytes: Uint8Array, argsAt: number, end: number): number {
    const args = this.skipBlanks(bytes, argsAt, end);
    if (args < 0) return FAILED;
    if (op === SUB) return this.subLine(bytes, args, end);
    if (op === UNSUB) return this.unsubLine(bytes, args, end);
    return this.messageLine(op, bytes, args, end);
  }

  /** A subject, reply, queue name or sid: bytes on the wire, decoded losslessly (see utf8.ts). */
  private arg(bytes: Uint8Array, index: number): string {
    return decodeSubject(bytes, this.argStart[index], this.argEnd[index], this.argsAscii);
  }

  private size(bytes: Uint8Array, index: number): number {
    return parseSize(bytes, this.argStart[index], this.argEnd[index]);
  }

  /** PUB subject [reply] size | HPUB subject [reply] hdr total | MSG/HMSG with a sid after the subject. */
  private messageLine(op: number, bytes: Uint8Array, start: number, end: number): number {
    const count = this.argCount;
    const withHeaders = op === HPUB || op === HMSG;
    const fixed = (withHeaders ? 3 : 2) + (op === MSG || op === HMSG ? 1 : 0);
    if (count !== fixed && count !== fixed + 1) {
      return this.malformed(op, count, bytes, start, end);
    }
    let headerSize = 0;
    if (withHeaders) {
      headerSize = this.size(bytes, count - 2);
      if (headerSize < 0) return this.badSize('header', bytes, count - 2);
    }
    const totalSize = this.size(bytes, count - 1);
    if (totalSize < 0) return this.badSize('total', bytes, count - 1);
    if (headerSize > totalSize) {
      this.fail('HEADER_SIZE', `header size ${headerSize} is larger than total size ${totalSize}`);
      return FAILED;
    }
    if (totalSize > this.maxPayload) {
      this.fail(
        'MAX_PAYLOAD',
        `maximum payload exceeded: ${totalSize} bytes declared, limit ${this.maxPayload}`,
      );
      return FAILED;
    }
    this.subject = cachedSubject(
      bytes,
      this.argStart[0],
      this.argEnd[0],
      this.firstHash,
      this.firstAscii,
    );
    let next = 1;
    if (op === MSG || op === HMSG) this.sid = this.arg(bytes, next++);
    this.reply = count > fixed ? this.arg(bytes, next) : undefined;
    this.headerSize = headerSize;
    this.totalSize = totalSize;
    this.hpub = op === HPUB;
    return NEEDS_BODY;
  }

  private subLine(bytes: Uint8Array, start: number, end: number): number {
    const count = this.argCount;
    if (count !== 2 && count !== 3) return this.malformed(SUB, count, bytes, start, end);
    this.sink.frame({
      op: 'SUB',
      subject: this.arg(bytes, 0),
      queue: count === 3 ? this.arg(bytes, 1) : undefined,
      sid: this.arg(bytes, count - 1),
    } as F);
    return DONE;
  }

  private unsubLine(bytes: Uint8Array, start: number, end: number): number {
    const count = this.argCount;
    if (count !== 1 && count !== 2) return this.malformed(UNSUB, count, bytes, start, end);
    // nats-server reads an unparsable max as "no max" rather than rejecting the line.
    const max = count === 2 ? this.size(bytes, 1) : -1;
    this.sink.frame({
      op: 'UNSUB',
      sid: this.arg(bytes, 0),
      max: max < 0 ? undefined : max,
    } as F);
    return DONE;
  }

  /** The payload starts at `chunk[pos]`; returns where parsing resumes, or -1 for "chunk used up". */
  private startBody(chunk: Uint8Array, pos: number): number {
    const total = this.totalSize;
    const available = chunk.length - pos;
    if (available >= total + 2) {
      const end = pos + total;
      if (chunk[end] !== CR || chunk[end + 1] !== LF) return this.badTerminator();
      this.emitMessage(chunk, pos, end);
      return end + 2;
    }
    if (available > total && chunk[pos + total] !== CR) return this.badTerminator();
    // The payload spans chunks: assemble it once, in a buffer of exactly its size.
    const body = new Uint8Array(total);
    const filled = Math.min(available, total);
    body.set(chunk.subarray(pos, pos + filled));
    this.body = body;
    this.bodyFilled = filled;
    this.terminatorSeen = available - filled;
    this.mode = BODY;
    return -1;
  }

  private continueBody(chunk: Uint8Array): number {
    const body = this.body!;
    let pos = 0;
    if (this.bodyFilled < body.length) {
      pos = Math.min(body.length - this.bodyFilled, chunk.length);
      body.set(pos === chunk.length ? chunk : chunk.subarray(0, pos), this.bodyFilled);
      this.bodyFilled += pos;
    }
    while (this.terminatorSeen < 2 && pos < chunk.length) {
      if (chunk[pos++] !== (this.terminatorSeen === 0 ? CR : LF)) return this.badTerminator();
      this.terminatorSeen++;
    }
    if (this.terminatorSeen < 2) return -1;
    this.mode = LINE;
    this.body = undefined;
    this.emitMessage(body, 0, body.length);
    return pos;
  }

  /** Hands out the message whose bytes (headers then payload) are `bytes[start, end)`. */
  private emitMessage(bytes: Uint8Array, start: number, end: number): void {
    const headerEnd = start + this.headerSize;
    const publishSink = this.publishSink;
    if (publishSink !== undefined) {
      publishSink.publish(this.subject, this.reply, bytes, start, headerEnd, end, this.hpub);
      return;
    }
    const headers = headerEnd > start ? bytes.subarray(start, headerEnd) : undefined;
    const payload = bytes.subarray(headerEnd, end);
    if (this.serverSide) {
      this.sink.frame({
        op: 'PUB',
        subject: this.subject,
        reply: this.reply,
        headers,
        payload,
        hpub: this.hpub,
      } as F);
    } else {
      this.sink.frame({
        op: 'MSG',
        subject: this.subject,
        sid: this.sid,
        reply: this.reply,
        headers,
        payload,
      } as F);
    }
  }

  private rejectOp(op: number, bytes: Uint8Array, start: number, end: number): false {
    if (op === ERR) {
      // nats-server drops a client that sends -ERR without answering.
      return this.fail('UNKNOWN_OPERATION', 'a client may not send -ERR', {
        serverErrorText: undefined,
      });
    }
    return this.fail(
      'UNKNOWN_OPERATION',
      op > 0
        ? `${NAMES[op]} is not accepted from this side of the connection`
        : `unknown protocol operation at ${snippet(bytes, start, end)}`,
    );
  }

  private malformed(
    op: number,
    count: number,
    bytes: Uint8Array,
    start: number,
    end: number,
  ): number {
    this.fail(
      'MALFORMED_ARGUMENTS',
      `${NAMES[op]} with ${count > MAX_ARGS ? 'too many' : count} arguments: ${snippet(bytes, start, end)}`,
    );
    return FAILED;
  }

  private badSize(which: string, bytes: Uint8Array, index: number): number {
    this.fail(
      'INVALID_SIZE',
      `invalid ${which} size ${snippet(bytes, this.argStart[index], this.argEnd[index])}`,
    );
    return FAILED;
  }

  private badTerminator(): number {
    this.fail('PAYLOAD_TERMINATOR', 'payload is not followed by CRLF: its declared size is wrong');
    return -1;
  }

  private fail(
    code: ProtocolErrorCode,
    message: string,
    options?: { serverErrorText: string | undefined },
  ): false {
    this.mode = DEAD;
    this.line = EMPTY;
    this.lineLength = 0;
    this.body = undefined;
    this.sink.error(new ProtocolError(code, message, options));
    return false;
  }
}

/**
 * Parses what a server receives: CONNECT, PUB, HPUB, SUB, UNSUB, PING, PONG, and the INFO and
 * +OK a client may send. MSG, HMSG, -ERR and anything else is an UNKNOWN_OPERATION.
 */
export class ServerSideParser extends ProtocolParser<ClientFrame> {
  /** A sink that is also a {@link PublishSink} takes PUB and HPUB through `publish`. */
  constructor(
    sink: FrameSink<ClientFrame> | (FrameSink<ClientFrame> & PublishSink),
    options?: ParserOptions,
  ) {
    super(sink, options, true);
  }
}

/** Parses what a client receives: INFO, MSG, HMSG, PING, PONG, +OK, -ERR. */
export class ClientSideParser extends ProtocolParser<ServerFrame> {
  constructor(sink: FrameSink<ServerFrame>, options?: ParserOptions) {
    super(sink, options, false);
  }
}
