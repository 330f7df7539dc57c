import type { X509Certificate } from 'node:crypto';
import type { Socket } from 'node:net';
import { TLSSocket } from 'node:tls';
import {
  type ClientFrame,
  type FrameSink,
  type ProtocolError,
  ServerSideParser,
} from '@slipstream/protocol';
import type { Account } from './accounts/account.js';
import type { Accounts } from './accounts/accounts.js';
import type { Identity, UserLimits, UserStanding } from './auth/authenticator.js';
import type { ClientAuthenticator } from './auth/client-authenticator.js';
import type { ConnectionPermissions, UserPermissions } from './auth/permissions.js';
import { type CloseReason, ErrText } from './errors.js';
import { Keepalive } from './keepalive.js';
import type { Logger } from './logger.js';
import type { MonitoredConnection } from './monitoring/monitored-connection.js';
import { activeTrace, type MsgTracer } from './msg-trace.js';
import type { ResolvedOptions } from './options.js';
import { type FlushQueue, Outbound } from './outbound.js';
import type { OutgoingMessage } from './outgoing-message.js';
import { PacedReader } from './paced-reader.js';
import { isLiteralSubject } from './sublist.js';
import { type Subscriber, Subscription } from './subscription.js';
import { afterWait } from './timer-delay.js';
import { handshakeRefusal } from './tls/handshake-check.js';
import { readTlsSession, type TlsSession } from './tls/tls-session.js';
import type { TrafficStats } from './traffic-stats.js';
import type { ViolationLog } from './violation-log.js';

/** The CONNECT fields the server acts on (nats-server ClientOpts); others are ignored. */
export interface ConnectFields {
  verbose?: boolean;
  pedantic?: boolean;
  echo?: boolean;
  headers?: boolean;
  no_responders?: boolean;
  protocol?: number;
  name?: string;
  lang?: string;
  version?: string;
  user?: string;
  pass?: string;
  auth_token?: string;
  nkey?: string;
  sig?: string;
  jwt?: string;
}

const BOOLEAN_FIELDS = ['verbose', 'pedantic', 'echo', 'headers', 'no_responders'] as const;
const STRING_FIELDS = [
  ...['name', 'lang', 'version'],
  ...['user', 'pass', 'auth_token', 'nkey', 'sig', 'jwt'],
] as const;

/** Reply prefixes reserved for the server's own routing (nats-server isReservedReply). */
const RESERVED_REPLY_PREFIXES = ['_R_.', '$JS.ACK.', '_GR_.'];

/** What a connection needs from the server that accepted it. */
export interface ClientHost {
  readonly options: ResolvedOptions;
  readonly logger: Logger;
  /** Every account; a connection is in `$G` until it authenticates as a user of another. */
  readonly accounts: Accounts;
  readonly flushQueue: FlushQueue;
  readonly stats: TrafficStats;
  readonly violations: ViolationLog;
  /** Checks CONNECT credentials; undefined when no authorization is configured. */
  readonly authenticator: ClientAuthenticator | undefined;
  /** Follows the publishes whose headers ask for a message trace. */
  readonly msgTracer: MsgTracer;
  /** The INFO JSON for a connection, with the nonce nkey users sign. */
  infoFor(cid: number, ip: string, nonce?: string, tlsFirst?: boolean): string;
  /** Called after each successful CONNECT. */
  clientConnected(client: ClientConnection): void;
  /** Called once, after the connection has been closed. */
  connectionClosed(client: ClientConnection, reason: CloseReason): void;
}

/**
 * One client connection: parses what the client sends, applies nats-server's CONNECT, PUB, SUB
 * and UNSUB rules (verbose, pedantic, echo, headers, no_responders, limits, exact -ERR texts) and
 * owns the connection's outbound buffer and keepalive.
 */
export class ClientConnection implements FrameSink<ClientFrame>, Subscriber, MonitoredConnection {
  readonly startedAt = Date.now();
  readonly #acceptedAt = performance.now();
  lastActivity = this.startedAt;
  readonly ip: string;
  readonly port: number;
  /** `ip:port - cid:N`, the prefix of every log line about this connection (as nats-server). */
  readonly label: string;
  readonly outbound: Outbound;
  readonly subscriptions = new Map<string, Subscription>();

  // Client options before (or without) CONNECT are nats-server's defaults.
  verbose = true;
  pedantic = true;
  echo = true;
  headers = false;
  noResponders = false;
  protocol = 0;
  name = '';
  lang = '';
  version = '';
  user: string | undefined;
  /** The authenticated user's permissions as configured, for `$SYS.REQ.USER.INFO`. */
  userPermissions: UserPermissions | undefined;
  /** When the authenticated user's credentials expire (ms since the epoch), if they do. */
  expiresAt: number | undefined;
  /** The account whose subject space the connection publishes and subscribes in. */
  account: Account;

  inMsgs = 0;
  inBytes = 0;
  outMsgs = 0;
  outBytes = 0;

  closeReason: CloseReason | undefined;
  stoppedAt: number | undefined;

  readonly #host: ClientHost;
  readonly #socket: Socket;
  readonly #parser: ServerSideParser;
  readonly #keepalive: Keepalive;
  readonly #trace: boolean;
  readonly #reader = new PacedReader((bytes) => this.#parse(bytes));
  #authenticated: boolean;
  #authTimer: NodeJS.Timeout | undefined;
  #mapCertificate = false;
  /** A TLS connection whose handshake is not over yet. */
  #handshaking = false;
  /**
   * What the TLS handshake settled, read once when it finished: the socket's SSL may already be
   * freed when it errors or closes, and reading it then crashes the process (see readTlsSession).
   */
  #tlsSession: TlsSession | undefined;
  /** What arrives while a bcrypt check is in progress, handled in order once it is over. */
  #held: (() => void)[] | undefined;
  /** The authenticated user's permissions; undefined = everything allowed. */
  #permissions: ConnectionPermissions | undefined;
  /** The authenticated JWT user's standing, read again when its account's claims change. */
  #standing: (() => UserStanding) | undefined;
  /** The authenticated user's own subscription limit (a user JWT's `subs`). */
  #userMaxSubscriptions: number | undefined;
  /** nats-server answers the first PING after CONNECT with an INFO if the payload limit changed. */
  #firstPong: 'before CONNECT' | 'due' | 'sent' = 'before CONNECT';

  constructor(
    readonly cid: number,
    socket: Socket,
    host: ClientHost,
    /** The nonce this connection's INFO carries, for an nkey user to sign. */
    readonly nonce?: string,
  ) {
    this.#host = host;
    this.account = host.accounts.global;
    this.account.join(this);
    this.#socket = socket;
    this.ip = socket.remoteAddress ?? '';
    this.port = socket.remotePort ?? 0;
    this.label = `${this.ip}:${this.port} - cid:${cid}`;
    const options = host.options;
    this.#trace = options.trace;
    this.#authenticated = !host.authenticator;
    this.#parser = new ServerSideParser(this, {
      maxControlLine: options.maxControlLine,
      maxPayload: options.maxPayload,
    });
    this.outbound = new Outbound(socket, host.flushQueue, {
      maxPending: options.maxPending,
      writeDeadline: options.writeDeadline,
      slowConsumer: (reason) => {
        host.stats.slowConsumers++;
        host.logger.warn(`${this.label} - Slow Consumer Detected: ${reason}`);
        this.close(reason);
      },
    });
    this.#keepalive = new Keepalive({
      interval: options.pingInterval,
      maxOutstanding: options.pingMax,
      sendPing: () => {
        this.outbound.writer.ping();
        this.#queued('PING');
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
    const options = this.#host.options;
    this.#mapCertificate = mapCertificate;
    if (sendInfo) {
      this.outbound.writer.info(this.#host.infoFor(this.cid, this.ip, this.nonce, tlsFirst));
      this.#queued('INFO');
    }
    const socket = this.#socket;
    if (!(socket instanceof TLSSocket)) {
      this.#startClocks();
      return;
    }
    const tls = options.tls!;
    let handshake: NodeJS.Timeout | undefined;
    afterWait(
      tls.timeout,
      () => this.close('TLS Handshake Failure'),
      (timer) => {
        handshake = timer;
      },
    );
    this.#handshaking = true;
    socket.once('secure', () => {
      this.#handshaking = false;
      clearTimeout(handshake);
      this.#tlsSession = readTlsSession(socket, { verify: tls.verify });
      const refusal = handshakeRefusal(this.#tlsSession, tls);
      if (refusal !== undefined) {
        if (options.debug) this.#host.logger.debug(`${this.label} - ${refusal}`);
        this.close('TLS Handshake Failure');
        return;
      }
      // As nats-server: the auth and ping clocks start once the handshake is over, so a slow
      // handshake does not eat into auth_timeout and no PING is queued behind it.
      this.#startClocks();
    });
  }

  #startClocks(): void {
    this.#keepalive.start();
    if (this.#host.authenticator) {
      afterWait(
        this.#host.options.authTimeout,
        () => {
          this.#violation(ErrText.authenticationTimeout);
          this.close('Authentication Timeout', ErrText.authenticationTimeout);
        },
        (timer) => {
          this.#authTimer = timer;
        },
      );
    }
  }

  /** The negotiated TLS version (`1.3`) and cipher suite, for a TLS connection. */
  get tls(): { version: string; cipherSuite: string } | undefined {
    const session = this.#tlsSession;
    return session && { version: session.version, cipherSuite: session.cipherSuite };
  }

  get closed(): boolean {
    return this.closeReason !== undefined;
  }

  /** Round-trip time in ms: the last answered server PING, or accept-to-CONNECT until then. */
  get rtt(): number | undefined {
    return this.#keepalive.rtt;
  }

  /** Sends an async INFO (lame duck mode) to clients that declared they understand it. */
  sendInfo(json: string): void {
    if (this.closed || this.protocol < 1) return;
    this.outbound.writer.info(json);
    this.#queued('INFO');
  }

  /** Subscriber: frames a routed message into the outbound buffer and accounts for it. */
  deliver(sub: Subscription, message: OutgoingMessage): boolean {
    if (message.reply !== undefined) this.#permissions?.responses?.received(message.reply);
    const bytes = message.writeTo(sub, this.outbound.writer, this.headers);
    this.outMsgs++;
    this.outBytes += bytes;
    const stats = this.#host.stats;
    stats.outMsgs++;
    stats.outBytes += bytes;
    if (this.#trace)
      this.#host.logger.trace(`${this.label} - ->> [MSG ${message.subject} ${sub.sid} ${bytes}]`);
    this.outbound.queued();
    return true;
  }

  removeSubscription(sub: Subscription): void {
    this.subscriptions.delete(sub.sid);
    this.account.router.unsubscribe(sub);
  }

  /**
   * Ends the connection, once. With `errText` the client gets `-ERR '<errText>'` first; everything
   * already queued is still written, except for a slow consumer, which is cut off at once.
   */
  close(reason: CloseReason, errText?: string): void {
    if (this.closed) return;
    this.closeReason = reason;
    this.stoppedAt = Date.now();
    this.#keepalive.stop();
    clearTimeout(this.#authTimer);
    this.account.leave(this);
    for (const sub of this.subscriptions.values()) this.account.router.unsubscribe(sub);
    const socket = this.#socket;
    socket.off('data', this.#onData);
    this.#reader.drop();
    // No -ERR: nats-server just drops a slow consumer (shared/reference/wire-protocol.md §7);
    // issue #3 asks for -ERR 'Slow Consumer', we follow the reference server, and count it. A TLS
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
        if (this.#trace) this.#host.logger.trace(`${this.label} - ->> [-ERR '${errText}']`);
      }
      this.outbound.flushFinal();
      this.outbound.dispose();
      socket.end();
      // A peer that never reads would hold the socket open forever; give it the write deadline.
      // The timer goes once the socket has closed, so it does not keep the connection in memory.
      let linger: NodeJS.Timeout | undefined;
      afterWait(
        this.#host.options.writeDeadline,
        () => socket.destroy(),
        (timer) => {
          linger = timer;
        },
      );
      socket.once('close', () => clearTimeout(linger));
    }
    this.#host.connectionClosed(this, reason);
  }

  /** FrameSink: one complete frame from the client. */
  frame(frame: ClientFrame): void {
    if (this.closed) return;
    if (this.#held) {
      this.#held.push(() => this.frame(frame));
      return;
    }
    if (this.#trace) this.#traceIn(frame);
    if (!this.#authenticated && frame.op !== 'CONNECT') {
      // nats-server takes a client that starts with anything else for no_auth_user, if set.
      const identity = this.#host.authenticator?.withoutConnect;
      if (!identity) {
        this.#authorizationViolation();
        return;
      }
      if (!this.#authenticatedAs(identity)) return;
    }
    switch (frame.op) {
      case 'PUB':
        this.#publish(frame.subject, frame.reply, frame.headers, frame.payload, frame.hpub);
        return;
      case 'SUB':
        this.#subscribe(frame.subject, frame.queue, frame.sid);
        return;
      case 'UNSUB':
        this.#unsubscribe(frame.sid, frame.max);
        return;
      case 'PING':
        this.outbound.writer.pong();
        this.#queued('PONG');
        if (this.#firstPong === 'due') this.#afterFirstPong();
        return;
      case 'PONG':
        this.#keepalive.pong();
        return;
      case 'CONNECT':
        this.#connect(frame.json);
        return;
      // A client's INFO and +OK are parsed and ignored, as nats-server does.
      case 'INFO':
      case 'OK':
        return;
    }
  }

  /** FrameSink: the client broke the protocol; the parser is finished. */
  error(error: ProtocolError): void {
    if (this.closed) return;
    if (this.#held) {
      this.#held.push(() => this.error(error));
      return;
    }
    this.#violation(`Client parser error: ${error.message}`);
    // Garbage before an authenticated CONNECT is an authorization problem first (nats-server
    // checks that the first op is CONNECT before it looks any further).
    if (!this.#authenticated && error.code === 'UNKNOWN_OPERATION') {
      this.#authorizationViolation();
      return;
    }
    const reason: CloseReason =
      error.code === 'MAX_PAYLOAD'
        ? 'Maximum Message Payload Exceeded'
        : error.code === 'MAX_CONTROL_LINE'
          ? 'Maximum Control Line Exceeded'
          : error.serverErrorText === undefined && error.code === 'UNKNOWN_OPERATION'
            ? 'Parse Error'
            : 'Protocol Violation';
    this.close(reason, error.serverErrorText);
  }

  readonly #onData = (chunk: Buffer): void => {
    // Activity is noted per chunk, not per frame: a chunk can carry thousands of frames.
    this.lastActivity = Date.now();
    this.#keepalive.activity();
    // A plain Uint8Array view: the parser's payload subarrays are then native typed-array views
    // instead of Buffers, which cost several times more to create.
    this.#reader.read(
      this.#socket,
      new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength),
    );
  };

  /** Parses bytes the reader hands over, in this turn or a later one. */
  #parse(bytes: Uint8Array): void {
    try {
      this.#parser.parse(bytes);
    } catch (error) {
      // A bug of ours must cost one connection, never the server.
      this.#host.logger.error(`${this.label} - Internal error: ${(error as Error).stack}`);
      this.close('Protocol Violation');
    }
  }

  #connect(json: string): void {
    const connect = parseConnect(json);
    if (connect === undefined) {
      this.#violation('CONNECT is not a JSON object with fields of the right types');
      // nats-server closes on unparsable CONNECT JSON without a word.
      this.close('Protocol Violation');
      return;
    }
    // Until a PING measures it, estimate the round trip as accept-to-CONNECT, as nats-server does.
    this.#keepalive.rtt ??= performance.now() - this.#acceptedAt;
    this.#keepalive.connected();
    if (this.#firstPong === 'before CONNECT') this.#firstPong = 'due';
    this.verbose = connect.verbose ?? this.verbose;
    this.pedantic = connect.pedantic ?? this.pedantic;
    this.echo = connect.echo ?? this.echo;
    this.headers = connect.headers ?? this.headers;
    this.noResponders = connect.no_responders ?? this.noResponders;
    this.name = connect.name ?? this.name;
    this.lang = connect.lang ?? this.lang;
    this.version = connect.version ?? this.version;
    const authenticator = this.#host.authenticator;
    if (!authenticator) {
      this.#connected(connect);
      return;
    }
    // Every CONNECT is checked, a later one too, as in nats-server: it may change the user.
    const identity = authenticator.authenticate(
      connect,
      this.nonce,
      this.#certificateToMap(),
      this.ip,
    );
    if (!(identity instanceof Promise)) {
      this.#authenticatedConnect(connect, identity);
      return;
    }
    // A bcrypt check takes a while: what the client sends meanwhile waits, in order.
    const held: (() => void)[] = [];
    this.#held = held;
    this.#socket.pause();
    void identity.then((result) => {
      this.#held = undefined;
      this.#socket.resume();
      this.#authenticatedConnect(connect, result);
      for (const next of held) next();
    });
  }

  /** verify_and_map: the client certificate that names the user (null for a plain client). */
  #certificateToMap(): X509Certificate | null | undefined {
    if (!this.#mapCertificate) return undefined;
    return this.#tlsSession?.peerCertificate ?? null;
  }

  #authenticatedConnect(connect: ConnectFields, identity: Identity | undefined): void {
    if (this.closed) return;
    if (!identity) {
      this.#authorizationViolation('Authentication Failure');
      return;
    }
    if (this.#authenticatedAs(identity)) this.#connected(connect);
  }

  /** False when the connection was closed instead: its account is full. */
  #authenticatedAs(identity: Identity): boolean {
    if (!this.#enter(this.#host.accounts.get(identity.account)!)) return false;
    this.#authenticated = true;
    this.user = identity.user;
    this.userPermissions = identity.permissions;
    this.#permissions = identity.permissions?.forConnection();
    this.#standing = identity.standing;
    const standing = identity.standing?.();
    this.#takeLimits(typeof standing === 'object' ? standing : {});
    if (this.#atSubscriptionLimit()) {
      // As nats-server: a user with no room for a subscription (a JWT's `subs: 0`) is told so
      // and closed 20 ms later, CONNECT's answers still going out meanwhile.
      this.#err(ErrText.maxSubscriptions);
      setTimeout(() => this.close('Maximum Subscriptions Exceeded'), 20).unref();
    }
    clearTimeout(this.#authTimer);
    this.expiresAt = identity.expiresAt;
    if (identity.expiresAt !== undefined) this.#expireAt(identity.expiresAt);
    return true;
  }

  /** The user's own limits: its subscriptions, and its payload under the server's. */
  #takeLimits(limits: UserLimits): void {
    this.#userMaxSubscriptions = limits.maxSubscriptions;
    const serverMax = this.#host.options.maxPayload;
    this.#parser.maxPayload = Math.min(serverMax, limits.maxPayload ?? serverMax);
  }

  /**
   * Its account's claims changed (operator mode), as nats-server then re-checks its clients: a
   * revoked user is closed with an error, one whose signing key went without, a bearer token
   * user its account refuses now with an authorization violation; the others take
   * their limits anew, and one that holds as many subscriptions as it may now is closed.
   */
  claimsChanged(): void {
    const standing = this.#standing?.();
    if (standing === 'revoked') {
      this.close('Credentials Revoked', ErrText.authenticationRevoked);
      return;
    }
    if (standing === 'signing key removed') {
      this.close('Authentication Failure');
      return;
    }
    if (standing === 'bearer refused') {
      this.#authorizationViolation();
      return;
    }
    this.#takeLimits(standing ?? {});
    if (this.#atSubscriptionLimit()) {
      this.#err(ErrText.maxSubscriptions);
      this.close('Maximum Subscriptions Exceeded');
    }
  }

  /** Whether the connection holds as many subscriptions as it may (nats-server's subsAtLimit). */
  #atSubscriptionLimit(): boolean {
    const max = this.#subscriptionLimit();
    return max !== undefined && this.subscriptions.size >= max;
  }

  /** Subscriptions the connection may hold: the lowest of the server's, account's and user's. */
  #subscriptionLimit(): number | undefined {
    const max = lowestLimit(this.#host.options.maxSubscriptions, this.account.maxSubscriptions);
    const user = this.#userMaxSubscriptions;
    if (max === 0) return user;
    return user === undefined ? max : Math.min(max, user);
  }

  /** Closes the connection when its credentials expire, as nats-server closes a JWT user's. */
  #expireAt(at: number): void {
    afterWait(
      at - Date.now(),
      () => this.close('Authentication Expired', ErrText.authenticationExpired),
      (timer) => {
        this.#authTimer = timer;
      },
    );
  }

  /**
   * Moves the connection into `account`; a later CONNECT as a user of another account takes its
   * subscriptions along. An account at its connection limit closes the connection instead.
   */
  #enter(account: Account): boolean {
    if (account === this.account) return true;
    if (account.full) {
      this.#violation(ErrText.maxAccountConnections);
      this.close('Maximum Account Connections Exceeded', ErrText.maxAccountConnections);
      return false;
    }
    for (const sub of this.subscriptions.values()) {
      this.account.router.sublist.remove(sub);
      account.router.subscribe(sub);
    }
    this.account.leave(this);
    account.join(this);
    this.account = account;
    return true;
  }

  /**
   * A client that takes async INFO learns its own max_payload (a JWT user's limit below the
   * server's) right after its first PONG, as nats-server tells it.
   */
  #afterFirstPong(): void {
    this.#firstPong = 'sent';
    const maxPayload = this.#parser.maxPayload;
    if (this.protocol < 1 || maxPayload === this.#host.options.maxPayload) return;
    const info = JSON.parse(this.#host.infoFor(this.cid, this.ip));
    this.outbound.writer.info(JSON.stringify({ ...info, max_payload: maxPayload }));
    this.#queued('INFO');
  }

  /** The rest of CONNECT, once the client is known. */
  #connected(connect: ConnectFields): void {
    const protocol = connect.protocol ?? this.protocol;
    if (!Number.isInteger(protocol) || protocol < 0 || protocol > 1) {
      this.#violation(ErrText.invalidClientProtocol);
      this.close('Bad Client Protocol Version', ErrText.invalidClientProtocol);
      return;
    }
    this.protocol = protocol;
    if (this.noResponders && !this.headers) {
      this.#violation(ErrText.noRespondersRequiresHeaders);
      this.close('No Responders Requires Headers', ErrText.noRespondersRequiresHeaders);
      return;
    }
    this.#ok();
    this.#host.clientConnected(this);
  }

  #publish(
    subject: string,
    reply: string | undefined,
    headers: Uint8Array | undefined,
    payload: Uint8Array,
    hpub: boolean,
  ): void {
    if (hpub && !this.headers) {
      // Any HPUB (even `HPUB foo 0 2`) from a client that did not negotiate headers: nats-server
      // closes without -ERR.
      this.#violation('HPUB from a client that did not negotiate headers');
      this.close('Protocol Violation');
      return;
    }
    const size = payload.length + (headers?.length ?? 0);
    this.inMsgs++;
    this.inBytes += size;
    const stats = this.#host.stats;
    stats.inMsgs++;
    stats.inBytes += size;
    // Pedantic only complains: nats-server 2.9.10 still delivers the message.
    if (this.pedantic && !isLiteralSubject(subject)) this.#err(ErrText.invalidPublishSubject);
    const traced = headers && this.#host.msgTracer.start(this, subject, headers, size);
    if (traced) traced.run((routed) => this.#route(subject, reply, routed, payload));
    else this.#route(subject, reply, headers, payload);
  }

  /** A publish past its protocol checks: mapped, checked against permissions, routed. */
  #route(
    subject: string,
    reply: string | undefined,
    headers: Uint8Array | undefined,
    payload: Uint8Array,
  ): void {
    // nats-server maps before anything else looks at the subject: permissions and receivers
    // see the destination.
    subject = this.account.mapped(subject);
    activeTrace()?.mapped(subject);
    if (subject.startsWith('_GR_.')) {
      this.#violation(ErrText.publishViolation(subject));
      activeTrace()?.refused(ErrText.publishViolation(subject));
      this.#err(ErrText.publishViolation(subject));
      return;
    }
    if (this.#permissions && !this.#permissions.canPublish(subject)) {
      this.#violation(
        `Publish Violation - User ${JSON.stringify(this.user)}, Subject "${subject}"`,
      );
      activeTrace()?.refused(ErrText.publishViolation(subject));
      this.#err(ErrText.publishViolation(subject));
      return;
    }
    if (reply !== undefined && isReservedReply(reply)) {
      activeTrace()?.refused(ErrText.replyViolation(reply));
      this.#err(ErrText.replyViolation(reply));
      return;
    }
    this.#ok();
    this.account.router.publish(this, subject, reply, headers, payload);
  }

  #subscribe(subject: string, queue: string | undefined, sid: string): void {
    if (queue === '_sys_') {
      this.#err(ErrText.queueViolation(subject, queue));
      return;
    }
    const permissions = this.#permissions;
    if (permissions && !permissions.canSubscribe(subject, queue)) {
      const text =
        queue === undefined
          ? ErrText.subscriptionViolation(subject)
          : ErrText.queueViolation(subject, queue);
      this.#violation(`Subscription Violation - User ${JSON.stringify(this.user)}, ${text}`);
      this.#err(text);
      return;
    }
    if (this.#atSubscriptionLimit()) {
      this.#err(ErrText.maxSubscriptions);
      return;
    }
    // A second SUB with a sid in use is ignored; the first subscription stays.
    if (!this.subscriptions.has(sid)) {
      const sub = new Subscription(this, subject, queue, sid);
      sub.refuses = permissions?.deliveryFilter(subject);
      if (!this.account.router.subscribe(sub)) {
        this.#err(ErrText.invalidSubject);
        return;
      }
      this.subscriptions.set(sid, sub);
    }
    this.#ok();
  }

  #unsubscribe(sid: string, max: number | undefined): void {
    const sub = this.subscriptions.get(sid);
    if (sub) {
      if (max !== undefined && max > sub.delivered) sub.max = max;
      else this.removeSubscription(sub);
    }
    this.#ok();
  }

  #authorizationViolation(reason: CloseReason = 'Authentication Failure'): void {
    this.#violation(`${ErrText.authorizationViolation}: ${reason}`);
    this.close(reason, ErrText.authorizationViolation);
  }

  #violation(message: string): void {
    this.#host.violations.report(this.label, message);
  }

  #ok(): void {
    if (!this.verbose) return;
    this.outbound.writer.ok();
    this.#queued('+OK');
  }

  /** -ERR that keeps the connection open. */
  #err(text: string): void {
    this.outbound.writer.err(text);
    this.#queued(`-ERR '${text}'`);
  }

  #queued(what: string): void {
    if (this.#trace) this.#host.logger.trace(`${this.label} - ->> [${what}]`);
    this.outbound.queued();
  }

  #traceIn(frame: ClientFrame): void {
    const args =
      frame.op === 'PUB'
        ? ` ${frame.subject}${frame.reply ? ` ${frame.reply}` : ''} ${frame.payload.length + (frame.headers?.length ?? 0)}`
        : frame.op === 'SUB'
          ? ` ${frame.subject}${frame.queue ? ` ${frame.queue}` : ''} ${frame.sid}`
          : frame.op === 'UNSUB'
            ? ` ${frame.sid}${frame.max === undefined ? '' : ` ${frame.max}`}`
            : frame.op === 'CONNECT'
              ? ` ${frame.json}`
              : '';
    this.#host.logger.trace(`${this.label} - <<- [${frame.op}${args}]`);
  }
}

/** The stricter of two limits where 0 means none (nats-server's minLimit). */
function lowestLimit(a: number, b: number): number {
  if (a === 0) return b;
  if (b === 0) return a;
  return Math.min(a, b);
}

function isReservedReply(reply: string): boolean {
  for (const prefix of RESERVED_REPLY_PREFIXES) if (reply.startsWith(prefix)) return true;
  return false;
}

/**
 * CONNECT JSON as nats-server's json.Unmarshal would take it: an object (or `null`, which changes
 * nothing) whose known fields have the right types. Anything else is undefined (close the connection).
 */
function parseConnect(json: string): ConnectFields | undefined {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return undefined;
  }
  if (value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) return undefined;
  const fields = value as Record<string, unknown>;
  for (const key of BOOLEAN_FIELDS) {
    if (fields[key] != null && typeof fields[key] !== 'boolean') return undefined;
  }
  for (const key of STRING_FIELDS) {
    if (fields[key] != null && typeof fields[key] !== 'string') return undefined;
  }
  // Go refuses to unmarshal 1.5 into an int just as it refuses "1".
  if (fields.protocol != null && !Number.isInteger(fields.protocol)) return undefined;
  const connect: ConnectFields = {};
  for (const [key, field] of Object.entries(fields)) {
    if (field !== null) (connect as Record<string, unknown>)[key] = field;
  }
  return connect;
}
