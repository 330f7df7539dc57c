import type { Socket } from 'node:net';
import { encodeSubject } from '@slipstream/protocol';
import { Keepalive } from '../keepalive.js';
import type { Logger } from '../logger.js';
import { connectionOutbound, type FlushQueue, type Outbound } from '../outbound.js';
import type { OutgoingMessage } from '../outgoing-message.js';
import { deadline } from '../timer-delay.js';
import type { TrafficStats } from '../traffic-stats.js';
import { InterserverProtocolError } from './frame-reader.js';

/** What a route or leaf node connection needs of the server. */
export interface InterserverHost {
  readonly logger: Logger;
  readonly flushQueue: FlushQueue;
  readonly stats: TrafficStats;
  readonly options: {
    readonly debug: boolean;
    readonly trace: boolean;
    readonly maxPending: number;
    readonly writeDeadline: number;
    readonly pingInterval: number;
    readonly pingMax: number;
  };
}

/** How the log names a kind of connection: `rid`/`lid` in its label, `Route`/`Leafnode` in parser errors. */
export interface InterserverKind {
  readonly idLabel: 'rid' | 'lid';
  readonly name: 'Route' | 'Leafnode';
}

/**
 * The wire of a route or a leaf node connection, which the two protocols share: the socket and its
 * outbound queue, PING/PONG keepalive, the handshake deadline, traffic counters, writing protocol
 * lines and messages, reading (a bad line closes with the -ERR nats-server sends), and closing.
 * What the frames mean is the subclass's.
 */
export abstract class InterserverConnection<H extends InterserverHost> {
  readonly ip: string;
  readonly port: number;
  /** When the other side last sent something (at first, when the connection was made). */
  lastActivity = Date.now();
  /** nats-server's label: `<ip>:<port> - rid:<cid>` (lid for a leaf), then the other server's name. */
  label: string;
  /** The other server's name (its id when it has none). */
  remoteName = '';
  inMsgs = 0;
  inBytes = 0;
  outMsgs = 0;
  outBytes = 0;
  readonly keepalive: Keepalive;
  protected readonly host: H;
  readonly #kind: InterserverKind;
  readonly #socket: Socket;
  readonly #outbound: Outbound;
  #ready = false;
  #closed = false;
  #stopHandshakeDeadline: (() => void) | undefined;

  constructor(
    readonly cid: number,
    socket: Socket,
    host: H,
    kind: InterserverKind,
  ) {
    this.host = host;
    this.#kind = kind;
    this.#socket = socket;
    this.ip = socket.remoteAddress ?? '';
    this.port = socket.remotePort ?? 0;
    this.label = `${this.ip}:${this.port} - ${kind.idLabel}:${cid}`;
    const options = host.options;
    this.#outbound = connectionOutbound(socket, host, this);
    this.keepalive = new Keepalive({
      interval: options.pingInterval,
      maxOutstanding: options.pingMax,
      sendPing: () => this.send('PING', 'PING\r\n'),
      stale: () => this.close('Stale Connection', 'Stale Connection'),
    });
    // A WebSocket leaf's byte stream is no TCP socket.
    socket.setNoDelay?.(true);
    socket.on('data', this.#onData);
    socket.on('error', (error) => {
      if (options.debug) host.logger.debug(`${this.label} - Socket error: ${error.message}`);
      this.close('Read Error');
    });
    socket.on('end', () => this.close('Client Closed'));
    socket.on('close', () => this.close('Client Closed'));
  }

  /** Hands a chunk read to this protocol's parser (which throws InterserverProtocolError). */
  protected abstract parse(chunk: Uint8Array): void;

  /** The connection closed: the other server's interest leaves the routers, the host hears. */
  protected abstract afterClose(reason: string): void;

  get closed(): boolean {
    return this.#closed;
  }

  get ready(): boolean {
    return this.#ready;
  }

  get rtt(): number | undefined {
    return this.keepalive.rtt;
  }

  get pendingBytes(): number {
    return this.#outbound.pendingBytes;
  }

  /** Closes the connection unless the handshake is over by then (nats-server's auth timer). */
  handshakeDeadline(ms: number, reason: string, errText: string): void {
    this.#stopHandshakeDeadline = deadline(ms, () => {
      if (!this.#ready) this.close(reason, errText);
    });
  }

  protected stopHandshakeDeadline(): void {
    this.#stopHandshakeDeadline?.();
  }

  /** Names the other server in every later log line, as nats-server does. */
  protected nameInLabel(name: string, id: string): void {
    this.remoteName = name || id;
    this.label = `${this.ip}:${this.port} - ${this.#kind.idLabel}:${this.cid} - "${this.remoteName}"`;
  }

  /** The handshake is over: interest and messages flow from now on. */
  protected handshakeDone(): void {
    this.#stopHandshakeDeadline?.();
    this.#ready = true;
    this.keepalive.connected();
  }

  /** Answers PING, ends the keepalive's wait on PONG, ignores +OK: true when `frame` was one. */
  protected keepaliveFrame(frame: { readonly op: string }): boolean {
    switch (frame.op) {
      case 'PING':
        this.send('PONG', 'PONG\r\n');
        return true;
      case 'PONG':
        this.keepalive.pong();
        return true;
      case 'OK':
        return true;
      default:
        return false;
    }
  }

  /** Writes one protocol line (`text` ends with CRLF); `what` is what a trace shows. */
  send(what: string, text: string): void {
    if (this.#closed) return;
    this.#outbound.writer.bytes(encodeSubject(text));
    if (this.host.options.trace) this.host.logger.trace(`${this.label} - ->> [${what}]`);
    this.#outbound.queued();
  }

  /**
   * Writes `message` as `verb` (HMSG with headers, when the other side takes them) on `subject`,
   * after `prefix` (a route's account), for `queues`; counts it. False before the handshake is
   * over or after the close.
   */
  protected writeMessage(
    verb: 'RMSG' | 'LMSG',
    prefix: string,
    message: OutgoingMessage,
    subject: string,
    queues: readonly string[],
    withHeaders: boolean,
  ): boolean {
    if (!this.#ready || this.#closed) return false;
    const headers = withHeaders ? message.headers : undefined;
    // A JetStream delivery is routed on its deliver subject and shown with the stream's subject;
    // nats-server carries the latter across after an '@' at the end of the reply.
    const reply =
      message.reply !== undefined && message.subject !== subject
        ? `${message.reply}@${message.subject}`
        : message.reply;
    let args = `${prefix}${subject}`;
    if (queues.length > 0) {
      args += reply === undefined ? ` | ${queues.join(' ')}` : ` + ${reply} ${queues.join(' ')}`;
    } else if (reply !== undefined) {
      args += ` ${reply}`;
    }
    const size = (headers?.length ?? 0) + message.payload.length;
    const line = headers
      ? `HMSG ${args} ${headers.length} ${size}`
      : `${verb} ${args} ${message.payload.length}`;
    const writer = this.#outbound.writer;
    writer.bytes(encodeSubject(`${line}\r\n`));
    if (headers) writer.bytes(headers);
    writer.bytes(message.payload);
    writer.bytes(CRLF);
    if (this.host.options.trace) this.host.logger.trace(`${this.label} - ->> [${line}]`);
    this.outMsgs++;
    this.outBytes += size;
    this.host.stats.outMsgs++;
    this.host.stats.outBytes += size;
    this.#outbound.queued();
    return true;
  }

  /** Counts a message that came in, `size` bytes with its headers. */
  protected countIn(size: number): void {
    this.inMsgs++;
    this.inBytes += size;
    this.host.stats.inMsgs++;
    this.host.stats.inBytes += size;
  }

  /** Closes the connection, `errText` going out as -ERR first; then `afterClose` drops its interest. */
  close(reason: string, errText?: string): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#stopHandshakeDeadline?.();
    this.keepalive.stop();
    const socket = this.#socket;
    socket.off('data', this.#onData);
    if (errText !== undefined && !socket.destroyed) {
      this.#outbound.writer.err(errText);
      if (this.host.options.trace) {
        this.host.logger.trace(`${this.label} - ->> [-ERR '${errText}']`);
      }
    }
    this.#outbound.flushFinal();
    this.#outbound.dispose();
    socket.end();
    const stopLinger = deadline(this.host.options.writeDeadline, () => socket.destroy());
    socket.once('close', stopLinger);
    this.afterClose(reason);
  }

  readonly #onData = (chunk: Buffer): void => {
    this.keepalive.activity();
    this.lastActivity = Date.now();
    try {
      this.parse(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
    } catch (error) {
      if (error instanceof InterserverProtocolError) {
        this.host.logger.error(`${this.label} - ${this.#kind.name} parser ERROR: ${error.message}`);
        this.close('Protocol Violation', error.text);
        return;
      }
      // A bug of ours must cost one connection, never the server.
      this.host.logger.error(`${this.label} - Internal error: ${(error as Error).stack}`);
      this.close('Protocol Violation');
    }
  };
}

const CRLF = new Uint8Array([0x0d, 0x0a]);
