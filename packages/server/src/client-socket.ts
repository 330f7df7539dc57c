import type { X509Certificate } from 'node:crypto';
import type { Socket } from 'node:net';
import { TLSSocket } from 'node:tls';
import {
  type ClientFrame,
  type FrameSink,
  type ProtocolError,
  type PublishSink,
  ServerSideParser,
} from '@slipstream/protocol';
import { countTraffic } from './buffer-collection.js';
import { type CloseReason, ErrText } from './errors.js';
import { Keepalive } from './keepalive.js';
import type { Logger } from './logger.js';
import type { ResolvedOptions } from './options.js';
import { connectionOutbound, type FlushQueue, type Outbound } from './outbound.js';
import { PacedReader } from './paced-reader.js';
import { afterWait, deadline } from './timer-delay.js';
import { handshakeRefusal } from './tls/handshake-check.js';
import { readTlsSession, type TlsSession } from './tls/tls-session.js';
import type { TrafficStats } from './traffic-stats.js';
import type { ViolationLog } from './violation-log.js';

/** What a client's socket needs from the server that accepted it. */
export interface ClientSocketHost {
  readonly options: ResolvedOptions;
  readonly logger: Logger;
  readonly flushQueue: FlushQueue;
  readonly stats: TrafficStats;
  readonly violations: ViolationLog;
  /** Set when authorization is configured: then the client has auth_timeout to authenticate. */
  readonly authenticator: unknown;
  /** The INFO JSON for a connection, with the nonce nkey users sign. */
  infoFor(cid: number, ip: string, nonce?: string, tlsFirst?: boolean): string;
}

/**
 * The socket side of a client connection (ClientConnection adds the NATS protocol on top): the
 * INFO it starts with and the TLS handshake, the auth and ping clocks, chunks read at a paced
 * rate into the protocol parser, the outbound buffer, and the socket's end as nats-server ends it.
 */
/** A connection that tells its peer why the server closes it (a WebSocket's close frame). */
interface SaysWhyItCloses {
  closeFor(reason: CloseReason): void;
}

export abstract class ClientSocket<Host extends ClientSocketHost = ClientSocketHost>
  implements FrameSink<ClientFrame>, PublishSink
{
  readonly startedAt = Date.now();
  /** When the socket was accepted, for the round trip estimated until a PING measures one. */
  protected readonly acceptedAt = performance.now();
  lastActivity = this.startedAt;
  readonly ip: string;
  readonly port: number;
  /** `ip:port - cid:N`, the prefix of every log line about this connection (as nats-server). */
  readonly label: string;
  readonly outbound: Outbound;

  closeReason: CloseReason | undefined;
  stoppedAt: number | undefined;

  protected readonly host: Host;
  protected readonly socket: Socket;
  protected readonly parser: ServerSideParser;
  protected readonly keepalive: Keepalive;
  /** The server logs every protocol line (`trace`). */
  protected readonly tracing: boolean;
  /** The auth timeout, then the user's credentials expiry. */
  protected authTimer: NodeJS.Timeout | undefined;
  readonly #reader = new PacedReader((bytes) => this.#parse(bytes));
  #mapCertificate = false;
  /** A TLS connection whose handshake is not over yet. */
  #handshaking = false;
  /**
   * What the TLS handshake settled, read once when it finished: the socket's SSL may already be
   * freed when it errors or closes, and reading it then crashes the process (see readTlsSession).
   */
  #tlsSession: TlsSession | undefined;

  constructor(
    readonly cid: number,
    socket: Socket,
    host: Host,
    /** The nonce this connection's INFO carries, for an nkey user to sign. */
    readonly nonce?: string,
  ) {
    this.host = host;
    this.socket = socket;
    this.ip = socket.remoteAddress ?? '';
    this.port = socket.remotePort ?? 0;
    this.label = `${this.ip}:${this.port} - cid:${cid}`;
    const options = host.options;
    this.tracing = options.trace;
    this.parser = new ServerSideParser(this, {
      maxControlLine: options.maxControlLine,
      maxPayload: options.maxPayload,
    });
    this.outbound = connectionOutbound(socket, host, this);
    this.keepalive = new Keepalive({
      interval: options.pingInterval,
      maxOutstanding: options.pingMax,
      sendPing: () => {
        this.outbound.writer.ping();
        this.queued('PING');
      },
      stale: () => {
        if (options.debug) host.logger.debug(`${this.label} - Stale Client Connection - Closing`);
        this.close('Stale Connection', ErrText.staleConnection);
      },
    });
    socket.setNoDelay(true);
    socket.on('data', this.#onData);
    socket.on('end', () => this.close('Client Closed'));
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (options.debug) host.logger.debug(`${this.label} - Socket error: ${error.message}`);
      if (this.#handshaking) this.close('TLS Handshake Failure');
      else this.close(error.code === 'EPIPE' ? 'Write Error' : 'Read Error');
    });
    socket.on('close', () => this.close('Client Closed'));
  }

  /** FrameSink: one complete frame from the client, other than PUB and HPUB. */
  abstract frame(frame: ClientFrame): void;

  /** PublishSink: a PUB or HPUB from the client. */
  abstract publish(
    subject: string,
    reply: string | undefined,
    bytes: Uint8Array,
    start: number,
    headersEnd: number,
    end: number,
    hpub: boolean,
  ): void;

  /** FrameSink: the client broke the protocol; the parser is finished. */
  abstract error(error: ProtocolError): void;

  /**
   * Ends the connection, once. With `errText` the client gets `-ERR '<errText>'` first; everything
   * already queued is still written, except for a slow consumer, which is cut off at once.
   */
  abstract close(reason: CloseReason, errText?: string): void;

  /**
   * Sends INFO (unless the server already did, in the clear, before a TLS upgrade) and starts the
   * TLS handshake clock, then the auth and ping clocks; call once, right after accepting.
   * `mapCertificate`: verify_and_map, the client certificate names the user. `tlsFirst`: the
   * client started with the TLS handshake (handshake_first).
   */
  start({
    sendInfo,
    mapCertificate,
    tlsFirst = false,
  }: {
    sendInfo: boolean;
    mapCertificate: boolean;
    tlsFirst?: boolean;
  }): void {
    const options = this.host.options;
    this.#mapCertificate = mapCertificate;
    if (sendInfo) {
      this.outbound.writer.info(this.host.infoFor(this.cid, this.ip, this.nonce, tlsFirst));
      this.queued('INFO');
    }
    const socket = this.socket;
    if (!(socket instanceof TLSSocket)) {
      this.#startClocks();
      return;
    }
    const tls = options.tls!;
    const stopHandshakeClock = deadline(tls.timeout, () => this.close('TLS Handshake Failure'));
    this.#handshaking = true;
    socket.once('secure', () => {
      this.#handshaking = false;
      stopHandshakeClock();
      this.#tlsSession = readTlsSession(socket, { verify: tls.verify });
      const refusal = handshakeRefusal(this.#tlsSession, tls);
      if (refusal !== undefined) {
        if (options.debug) this.host.logger.debug(`${this.label} - ${refusal}`);
        this.close('TLS Handshake Failure');
        return;
      }
      // As nats-server: the auth and ping clocks start once the handshake is over, so a slow
      // handshake does not eat into auth_timeout and no PING is queued behind it.
      this.#startClocks();
    });
  }

  #startClocks(): void {
    this.keepalive.start();
    if (this.host.authenticator) {
      afterWait(
        this.host.options.authTimeout,
        () => {
          this.violation(ErrText.authenticationTimeout);
          this.close('Authentication Timeout', ErrText.authenticationTimeout);
        },
        (timer) => {
          this.authTimer = timer;
        },
      );
    }
  }

  /** The negotiated TLS version (`1.3`) and cipher suite, for a TLS connection. */
  get tls(): { version: string; cipherSuite: string } | undefined {
    const session = this.#tlsSession;
    return session && { version: session.version, cipherSuite: session.cipherSuite };
  }

  /** verify_and_map: the client certificate that names the user (null for a plain client). */
  protected certificateToMap(): X509Certificate | null | undefined {
    if (!this.#mapCertificate) return undefined;
    return this.#tlsSession?.peerCertificate ?? null;
  }

  get closed(): boolean {
    return this.closeReason !== undefined;
  }

  /** Round-trip time in ms: the last answered server PING, or accept-to-CONNECT until then. */
  get rtt(): number | undefined {
    return this.keepalive.rtt;
  }

  /** The first step of closing: the connection counts as closed from now on, its clocks stop. */
  protected markClosed(reason: CloseReason): void {
    this.closeReason = reason;
    this.stoppedAt = Date.now();
    this.keepalive.stop();
    clearTimeout(this.authTimer);
  }

  /** The last step of closing: the socket is written out (or cut off) and ended. */
  protected endSocket(reason: CloseReason, errText: string | undefined): void {
    const socket = this.socket;
    socket.off('data', this.#onData);
    this.#reader.drop();
    // No -ERR: nats-server just drops a slow consumer (shared/reference/wire-protocol.md §7);
    // an -ERR 'Slow Consumer' was once asked for; we follow the reference server, and count it. A TLS
    // connection whose handshake failed or is not over has no channel to write on: an end()
    // would wait for it (with handshake_first's INFO queued) and never close the socket.
    if (
      reason.startsWith('Slow Consumer') ||
      reason === 'TLS Handshake Failure' ||
      this.#handshaking
    ) {
      this.outbound.dispose();
      socket.destroy();
    } else {
      if (errText !== undefined) {
        this.outbound.writer.err(errText);
        if (this.tracing) this.host.logger.trace(`${this.label} - ->> [-ERR '${errText}']`);
      }
      this.outbound.flushFinal();
      this.outbound.dispose();
      (socket as Socket & Partial<SaysWhyItCloses>).closeFor?.(reason);
      socket.end();
      // A peer that never reads would hold the socket open forever; give it the write deadline.
      // The timer goes once the socket has closed, so it does not keep the connection in memory.
      const stopLinger = deadline(this.host.options.writeDeadline, () => socket.destroy());
      socket.once('close', stopLinger);
    }
  }

  readonly #onData = (chunk: Buffer): void => {
    // Activity is noted per chunk, not per frame: a chunk can carry thousands of frames.
    this.lastActivity = Date.now();
    this.keepalive.activity();
    countTraffic(chunk.byteLength);
    // A plain Uint8Array view: the parser's payload subarrays are then native typed-array views
    // instead of Buffers, which cost several times more to create.
    this.#reader.read(
      this.socket,
      new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength),
    );
  };

  /** Parses bytes the reader hands over, in this turn or a later one. */
  #parse(bytes: Uint8Array): void {
    try {
      this.parser.parse(bytes);
    } catch (error) {
      // A bug of ours must cost one connection, never the server.
      this.host.logger.error(`${this.label} - Internal error: ${(error as Error).stack}`);
      this.close('Protocol Violation');
    }
  }

  protected violation(message: string): void {
    this.host.violations.report(this.label, message);
  }

  /** -ERR that keeps the connection open. */
  protected err(text: string): void {
    this.outbound.writer.err(text);
    this.queued(`-ERR '${text}'`);
  }

  /** Something was appended to the outbound buffer: traced if asked, and flushed in its turn. */
  protected queued(what: string): void {
    if (this.tracing) this.host.logger.trace(`${this.label} - ->> [${what}]`);
    this.outbound.queued();
  }
}
