import {
  ClientSideParser,
  type ConnectInfo,
  FrameWriter,
  type ProtocolError,
  parseServerInfo,
  type ServerFrame,
  type ServerInfo,
} from '@slipstream/protocol';
import type { TransportConnection } from '@slipstream/transport';
import { authenticate } from './authenticator.js';
import {
  ClosedConnectionError,
  ConnectionError,
  type NatsError,
  ProtocolViolationError,
  StaleConnectionError,
  TimeoutError,
} from './errors.js';
import { Keepalive } from './keepalive.js';
import type { ResolvedOptions } from './options.js';
import type { Outbox } from './outbox.js';
import { errorFromServer } from './server-error.js';
import type { ServerEntry } from './servers.js';
import type { Status } from './types.js';
import { LANG, VERSION } from './version.js';

/** Server messages can carry a little more than max_payload (JetStream adds headers). */
const PAYLOAD_SLACK = 64 * 1024;
/** Server control lines (MSG subject + reply) are not bound by the client-side 4096 limit. */
const SERVER_CONTROL_LINE = 64 * 1024;

/** Called with the PONG that answers a PING, or with the error that means none will come. */
export type PongWaiter = (error?: Error) => void;

export type MessageFrame = Extract<ServerFrame, { op: 'MSG' }>;

/** What a session needs from the connection that owns it. */
export interface SessionHost {
  readonly options: ResolvedOptions;
  /** Where frames go once the session is in use (see {@link Session.start}). */
  readonly outbox: Outbox;
  /** Headers are on: asked for, and no server said it lacks them. */
  headersOn(): boolean;
  /** A MSG or HMSG arrived. */
  message(frame: MessageFrame): void;
  /** The server sent an INFO (before the session acts on it). */
  info(info: ServerInfo, from: Session): void;
  /** The server sent -ERR after the handshake. */
  serverError(error: NatsError): void;
  /** The socket closed after the handshake. */
  lost(session: Session, error: Error | undefined): void;
  emit(status: Status): void;
}

interface Handshake {
  connectSent: boolean;
  settled: boolean;
  resolve(): void;
  reject(error: Error): void;
}

/**
 * One socket to one server and the protocol on it: the parser of what arrives, the INFO /
 * CONNECT / PING / PONG handshake, the PINGs awaiting their PONG, and keep-alive. It lives from
 * the socket's opening to its close; the reconnecting connection (connection.ts) makes a new one
 * per attempt and owns everything that outlives sockets.
 */
export class Session {
  /** The server this socket goes to. */
  readonly server: ServerEntry;
  readonly #conn: TransportConnection;
  readonly #host: SessionHost;
  readonly #parser: ClientSideParser;
  readonly #keepalive: Keepalive;
  /** Set while the handshake runs. */
  #handshake: Handshake | undefined;
  /** Set once the connection took this socket into use: frames then go through its outbox. */
  #inUse = false;
  /** One entry per PING on this socket, in order; null for keep-alive pings. */
  #pongs: Array<PongWaiter | null> = [];

  constructor(
    conn: TransportConnection,
    server: ServerEntry,
    host: SessionHost,
    maxPayload: number,
  ) {
    this.#conn = conn;
    this.server = server;
    this.#host = host;
    this.#parser = new ClientSideParser(this.#sink, {
      maxControlLine: SERVER_CONTROL_LINE,
      maxPayload: maxPayload + PAYLOAD_SLACK,
    });
    this.#keepalive = new Keepalive({
      interval: host.options.pingInterval,
      maxOutstanding: host.options.maxPingOut,
      sendPing: (outstanding) => {
        host.emit({ type: 'ping', pendingPings: outstanding });
        this.ping(null);
        host.outbox.writeNow();
      },
      stale: () => {
        host.emit({ type: 'staleConnection' });
        void this.#conn.close(new StaleConnectionError());
      },
    });
  }

  /** True when the bytes travel encrypted (TLS or wss). */
  get encrypted(): boolean {
    return this.#conn.encrypted;
  }

  get handshaking(): boolean {
    return this.#handshake !== undefined;
  }

  /**
   * Starts reading and runs the handshake: resolves at the PONG to CONNECT's PING; rejects on a
   * -ERR, the socket's close, or at `deadline` (ms since epoch). Settles once.
   */
  async handshake(deadline: number): Promise<void> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      await new Promise<void>((resolve, reject) => {
        const handshake: Handshake = {
          connectSent: false,
          settled: false,
          resolve: () => {
            if (handshake.settled) return;
            handshake.settled = true;
            resolve();
          },
          reject: (error) => {
            if (handshake.settled) return;
            handshake.settled = true;
            reject(error);
          },
        };
        this.#handshake = handshake;
        timer = setTimeout(
          () => handshake.reject(new TimeoutError()),
          Math.max(0, deadline - Date.now()),
        );
        this.#conn.listen({
          data: (chunk) => this.#parser.parse(chunk),
          closed: (error) => this.#onClosed(error),
        });
      });
    } finally {
      clearTimeout(timer);
      this.#handshake = undefined;
    }
  }

  /** The connection takes this socket into use: frames go out through its outbox, keep-alive runs. */
  start(): void {
    this.#inUse = true;
    this.#host.outbox.attach(this.#conn);
    this.#keepalive.start();
  }

  /** Sends bytes ahead of whatever the outbox holds. */
  send(bytes: Uint8Array): void {
    this.#conn.send(bytes);
  }

  /** Queues a PING in the outbox; `waiter` (null for keep-alive) hears its PONG. */
  ping(waiter: PongWaiter | null): void {
    this.#pongs.push(waiter);
    this.#host.outbox.writer.ping();
  }

  /** Removes the flushes still waiting for a PONG on this socket (keep-alive pings die with it). */
  takeWaiters(): PongWaiter[] {
    const waiters = this.#pongs.filter((waiter): waiter is PongWaiter => waiter !== null);
    this.#pongs = [];
    return waiters;
  }

  /**
   * Ends the session: keep-alive stops, a handshake under way fails (with `error`, else
   * ClosedConnectionError), and the socket closes, at once when `error` is given, else after
   * what it holds.
   */
  close(error?: Error): Promise<void> {
    this.#keepalive.stop();
    this.#handshake?.reject(error ?? new ClosedConnectionError());
    return this.#conn.close(error);
  }

  #onClosed(error: Error | undefined): void {
    this.#keepalive.stop();
    if (this.#handshake) {
      this.#handshake.reject(
        error ?? new ConnectionError('the server closed the connection during the handshake'),
      );
      return;
    }
    this.#inUse = false;
    this.#host.lost(this, error);
  }

  readonly #sink = {
    frame: (frame: ServerFrame) => {
      if (frame.op === 'MSG') {
        this.#host.message(frame);
        return;
      }
      if (this.#host.options.debug)
        console.debug(
          '[nats] <',
          frame.op,
          'json' in frame ? frame.json : 'message' in frame ? frame.message : '',
        );
      switch (frame.op) {
        case 'PING':
          this.#answerPing();
          break;
        case 'PONG':
          this.#keepalive.pong();
          this.#pongs.shift()?.();
          break;
        case 'INFO':
          this.#onInfo(frame.json);
          break;
        case 'ERR':
          this.#onServerError(frame.message);
          break;
        case 'OK':
          break;
      }
    },
    error: (error: ProtocolError) => {
      void this.#conn.close(
        new ProtocolViolationError(`bad data from the server: ${error.message}`, { cause: error }),
      );
    },
  };

  #answerPing(): void {
    if (this.#inUse) {
      this.#host.outbox.writer.pong();
      this.#host.outbox.writeNow();
    } else if (this.#handshake) {
      // Mid-handshake the outbox holds publishes that must wait: answer on the side.
      const w = new FrameWriter(8);
      w.pong();
      this.#conn.send(w.take());
    }
  }

  #onInfo(json: string): void {
    const parsed = parseServerInfo(json);
    if (!parsed.ok) {
      void this.#conn.close(
        new ProtocolViolationError(`the server sent a bad INFO: ${parsed.error.message}`, {
          cause: parsed.error,
        }),
      );
      return;
    }
    const info = parsed.value;
    if (info.max_payload > 0) this.#parser.maxPayload = info.max_payload + PAYLOAD_SLACK;
    this.#host.info(info, this);
    const handshake = this.#handshake;
    if (handshake && !handshake.connectSent) {
      handshake.connectSent = true;
      void this.#sendConnect(info, handshake);
    }
  }

  #onServerError(text: string): void {
    const error = errorFromServer(text);
    if (this.#handshake) this.#handshake.reject(error);
    else this.#host.serverError(error);
  }

  async #sendConnect(info: ServerInfo, handshake: Handshake): Promise<void> {
    try {
      const o = this.#host.options;
      const auth = await authenticate(o, info.nonce);
      if (handshake.settled) return;
      const headers = this.#host.headersOn();
      const connect = {
        verbose: o.verbose,
        pedantic: o.pedantic,
        tls_required: this.#conn.encrypted,
        lang: LANG,
        version: VERSION,
        protocol: 1,
        echo: !o.noEcho,
        headers,
        no_responders: headers && o.noResponders,
        ...(o.name === undefined ? {} : { name: o.name }),
        ...auth,
      } as ConnectInfo;
      const w = new FrameWriter(512);
      w.connect(connect);
      w.ping();
      this.#pongs.push((error) => (error ? handshake.reject(error) : handshake.resolve()));
      if (o.debug)
        console.debug(
          '[nats] > CONNECT',
          JSON.stringify({
            ...connect,
            pass: undefined,
            auth_token: undefined,
            jwt: undefined,
            sig: undefined,
          }),
        );
      this.#conn.send(w.take());
    } catch (error) {
      handshake.reject(
        error === undefined
          ? new ConnectionError('authentication failed')
          : error instanceof Error
            ? error
            : new Error(String(error)),
      );
    }
  }
}
