import type { Socket } from 'node:net';
import type { ClientFrame, ProtocolError } from '@slipstream/protocol';
import type { Account } from './accounts/account.js';
import type { Accounts } from './accounts/accounts.js';
import type { Identity, UserLimits, UserStanding } from './auth/authenticator.js';
import type { ClientAuthenticator } from './auth/client-authenticator.js';
import type { ConnectionPermissions, UserPermissions } from './auth/permissions.js';
import { ClientSocket, type ClientSocketHost } from './client-socket.js';
import { type ConnectFields, parseConnect } from './connect-fields.js';
import { type CloseReason, ErrText } from './errors.js';
import type { MonitoredConnection } from './monitoring/monitored-connection.js';
import { activeTrace, type MsgTracer } from './msg-trace.js';
import type { OutgoingMessage } from './outgoing-message.js';
import { isLiteralSubject } from './sublist.js';
import { type Subscriber, Subscription } from './subscription.js';
import { afterWait } from './timer-delay.js';

/** Reply prefixes reserved for the server's own routing (nats-server isReservedReply). */
const RESERVED_REPLY_PREFIXES = ['_R_.', '$JS.ACK.', '_GR_.'];

/** What a connection needs from the server that accepted it. */
export interface ClientHost extends ClientSocketHost {
  /** Every account; a connection is in `$G` until it authenticates as a user of another. */
  readonly accounts: Accounts;
  /** Checks CONNECT credentials; undefined when no authorization is configured. */
  readonly authenticator: ClientAuthenticator | undefined;
  /** Follows the publishes whose headers ask for a message trace. */
  readonly msgTracer: MsgTracer;
  /**
   * Changes whenever the client INFO does (the cluster's connect_urls): a client greeted with an
   * older one gets the new INFO after its first PONG, as nats-server's processPing sends it.
   */
  readonly infoVersion: number;
  /** Called after each successful CONNECT. */
  clientConnected(client: ClientConnection): void;
  /** Called once, after the connection has been closed. */
  connectionClosed(client: ClientConnection, reason: CloseReason): void;
}

/**
 * One client connection: applies nats-server's CONNECT, PUB, SUB and UNSUB rules (verbose,
 * pedantic, echo, headers, no_responders, authentication, permissions, limits, exact -ERR texts)
 * to the frames its socket (ClientSocket) parses, and frames what its subscriptions receive.
 */
export class ClientConnection
  extends ClientSocket<ClientHost>
  implements Subscriber, MonitoredConnection
{
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

  #authenticated: boolean;
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

  /** The host's infoVersion when this client was greeted. */
  readonly #infoVersion: number;

  constructor(cid: number, socket: Socket, host: ClientHost, nonce?: string) {
    super(cid, socket, host, nonce);
    this.#infoVersion = host.infoVersion;
    this.account = host.accounts.global;
    this.account.join(this);
    this.#authenticated = !host.authenticator;
  }

  /** Sends an async INFO (lame duck mode) to clients that declared they understand it. */
  sendInfo(json: string): void {
    if (this.closed || this.protocol < 1) return;
    this.outbound.writer.info(json);
    this.queued('INFO');
  }

  /** Subscriber: frames a routed message into the outbound buffer and accounts for it. */
  deliver(sub: Subscription, message: OutgoingMessage): boolean {
    if (message.reply !== undefined) this.#permissions?.responses?.received(message.reply);
    const bytes = message.writeTo(sub, this.outbound.writer, this.headers);
    this.outMsgs++;
    this.outBytes += bytes;
    const stats = this.host.stats;
    stats.outMsgs++;
    stats.outBytes += bytes;
    if (this.tracing)
      this.host.logger.trace(`${this.label} - ->> [MSG ${message.subject} ${sub.sid} ${bytes}]`);
    this.outbound.queued();
    return true;
  }

  removeSubscription(sub: Subscription): void {
    this.subscriptions.delete(sub.sid);
    this.account.router.unsubscribe(sub);
  }

  close(reason: CloseReason, errText?: string): void {
    if (this.closed) return;
    this.markClosed(reason);
    this.account.leave(this);
    for (const sub of this.subscriptions.values()) this.account.router.unsubscribe(sub);
    this.endSocket(reason, errText);
    this.host.connectionClosed(this, reason);
  }

  /**
   * PublishSink: a PUB or HPUB from the client, as offsets into the chunk it came in (see
   * PublishSink), so that the payload's view is made only if some subscriber receives it.
   */
  publish(
    subject: string,
    reply: string | undefined,
    bytes: Uint8Array,
    start: number,
    headersEnd: number,
    end: number,
    hpub: boolean,
  ): void {
    if (this.closed) return;
    if (this.#held) {
      this.#held.push(() => this.publish(subject, reply, bytes, start, headersEnd, end, hpub));
      return;
    }
    if (this.tracing) this.#traceIn('PUB', pubArgs(subject, reply, end - start));
    if (!this.#authenticated && !this.#authenticatedWithoutConnect()) return;
    const headers = headersEnd > start ? bytes.subarray(start, headersEnd) : undefined;
    this.#publish(subject, reply, headers, bytes, headersEnd, end, hpub);
  }

  /** FrameSink: one complete frame from the client (a PUB or HPUB comes to publish() instead). */
  frame(frame: ClientFrame): void {
    if (this.closed) return;
    if (this.#held) {
      this.#held.push(() => this.frame(frame));
      return;
    }
    if (this.tracing) this.#traceIn(frame.op, frameArgs(frame));
    if (!this.#authenticated && frame.op !== 'CONNECT' && !this.#authenticatedWithoutConnect()) {
      return;
    }
    switch (frame.op) {
      case 'PUB': {
        const { payload } = frame;
        this.#publish(
          frame.subject,
          frame.reply,
          frame.headers,
          payload,
          0,
          payload.length,
          frame.hpub,
        );
        return;
      }
      case 'SUB':
        this.#subscribe(frame.subject, frame.queue, frame.sid);
        return;
      case 'UNSUB':
        this.#unsubscribe(frame.sid, frame.max);
        return;
      case 'PING':
        this.outbound.writer.pong();
        this.queued('PONG');
        if (this.#firstPong === 'due') this.#afterFirstPong();
        return;
      case 'PONG':
        this.keepalive.pong();
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

  /**
   * Before an authenticated CONNECT: nats-server takes a client that starts with anything else
   * for no_auth_user, if set; false when the connection was closed instead.
   */
  #authenticatedWithoutConnect(): boolean {
    const identity = this.host.authenticator?.withoutConnect;
    if (!identity) {
      this.#authorizationViolation();
      return false;
    }
    return this.#authenticatedAs(identity);
  }

  /** FrameSink: the client broke the protocol; the parser is finished. */
  error(error: ProtocolError): void {
    if (this.closed) return;
    if (this.#held) {
      this.#held.push(() => this.error(error));
      return;
    }
    this.violation(`Client parser error: ${error.message}`);
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

  #connect(json: string): void {
    const connect = parseConnect(json);
    if (connect === undefined) {
      this.violation('CONNECT is not a JSON object with fields of the right types');
      // nats-server closes on unparsable CONNECT JSON without a word.
      this.close('Protocol Violation');
      return;
    }
    // Until a PING measures it, estimate the round trip as accept-to-CONNECT, as nats-server does.
    this.keepalive.rtt ??= performance.now() - this.acceptedAt;
    this.keepalive.connected();
    if (this.#firstPong === 'before CONNECT') this.#firstPong = 'due';
    this.verbose = connect.verbose ?? this.verbose;
    this.pedantic = connect.pedantic ?? this.pedantic;
    this.echo = connect.echo ?? this.echo;
    this.headers = connect.headers ?? this.headers;
    this.noResponders = connect.no_responders ?? this.noResponders;
    this.name = connect.name ?? this.name;
    this.lang = connect.lang ?? this.lang;
    this.version = connect.version ?? this.version;
    const authenticator = this.host.authenticator;
    if (!authenticator) {
      this.#connected(connect);
      return;
    }
    // Every CONNECT is checked, a later one too, as in nats-server: it may change the user.
    const identity = authenticator.authenticate(
      connect,
      this.nonce,
      this.certificateToMap(),
      this.ip,
    );
    if (!(identity instanceof Promise)) {
      this.#authenticatedConnect(connect, identity);
      return;
    }
    // A bcrypt check takes a while: what the client sends meanwhile waits, in order.
    const held: (() => void)[] = [];
    this.#held = held;
    this.socket.pause();
    void identity.then((result) => {
      this.#held = undefined;
      this.socket.resume();
      this.#authenticatedConnect(connect, result);
      for (const next of held) next();
    });
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
    if (!this.#enter(this.host.accounts.get(identity.account)!)) return false;
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
      this.err(ErrText.maxSubscriptions);
      setTimeout(() => this.close('Maximum Subscriptions Exceeded'), 20).unref();
    }
    clearTimeout(this.authTimer);
    this.expiresAt = identity.expiresAt;
    if (identity.expiresAt !== undefined) this.#expireAt(identity.expiresAt);
    return true;
  }

  /** The user's own limits: its subscriptions, and its payload under the server's. */
  #takeLimits(limits: UserLimits): void {
    this.#userMaxSubscriptions = limits.maxSubscriptions;
    const serverMax = this.host.options.maxPayload;
    this.parser.maxPayload = Math.min(serverMax, limits.maxPayload ?? serverMax);
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
      this.err(ErrText.maxSubscriptions);
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
    const max = lowestLimit(this.host.options.maxSubscriptions, this.account.maxSubscriptions);
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
        this.authTimer = timer;
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
      this.violation(ErrText.maxAccountConnections);
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
   * server's) right after its first PONG, as nats-server tells it; and the INFO again when it
   * changed since the greeting (a cluster member came or went meanwhile).
   */
  #afterFirstPong(): void {
    this.#firstPong = 'sent';
    const maxPayload = this.parser.maxPayload;
    const ownLimit = maxPayload !== this.host.options.maxPayload;
    if (this.protocol < 1 || (!ownLimit && this.host.infoVersion === this.#infoVersion)) return;
    const info = this.host.infoFor(this.cid, this.ip);
    this.outbound.writer.info(
      ownLimit ? JSON.stringify({ ...JSON.parse(info), max_payload: maxPayload }) : info,
    );
    this.queued('INFO');
  }

  /** The rest of CONNECT, once the client is known. */
  #connected(connect: ConnectFields): void {
    const protocol = connect.protocol ?? this.protocol;
    if (!Number.isInteger(protocol) || protocol < 0 || protocol > 1) {
      this.violation(ErrText.invalidClientProtocol);
      this.close('Bad Client Protocol Version', ErrText.invalidClientProtocol);
      return;
    }
    this.protocol = protocol;
    if (this.noResponders && !this.headers) {
      this.violation(ErrText.noRespondersRequiresHeaders);
      this.close('No Responders Requires Headers', ErrText.noRespondersRequiresHeaders);
      return;
    }
    this.#ok();
    this.host.clientConnected(this);
  }

  /** A publish whose payload is `bytes[payloadStart, end)`. */
  #publish(
    subject: string,
    reply: string | undefined,
    headers: Uint8Array | undefined,
    bytes: Uint8Array,
    payloadStart: number,
    end: number,
    hpub: boolean,
  ): void {
    if (hpub && !this.headers) {
      // Any HPUB (even `HPUB foo 0 2`) from a client that did not negotiate headers: nats-server
      // closes without -ERR.
      this.violation('HPUB from a client that did not negotiate headers');
      this.close('Protocol Violation');
      return;
    }
    const size = end - payloadStart + (headers?.length ?? 0);
    this.inMsgs++;
    this.inBytes += size;
    const stats = this.host.stats;
    stats.inMsgs++;
    stats.inBytes += size;
    // Pedantic only complains: nats-server 2.9.10 still delivers the message.
    if (this.pedantic && !isLiteralSubject(subject)) this.err(ErrText.invalidPublishSubject);
    const traced = headers && this.host.msgTracer.start(this, subject, headers, size);
    if (traced) {
      traced.run((routed) => this.#route(subject, reply, routed, bytes, payloadStart, end));
    } else this.#route(subject, reply, headers, bytes, payloadStart, end);
  }

  /** A publish past its protocol checks: mapped, checked against permissions, routed. */
  #route(
    subject: string,
    reply: string | undefined,
    headers: Uint8Array | undefined,
    bytes: Uint8Array,
    payloadStart: number,
    end: number,
  ): void {
    // nats-server maps before anything else looks at the subject: permissions and receivers
    // see the destination.
    subject = this.account.mapped(subject);
    activeTrace()?.mapped(subject);
    // The first character inline: startsWith is a call, and this runs for every publish.
    if (subject.charCodeAt(0) === 0x5f && subject.startsWith('_GR_.')) {
      this.violation(ErrText.publishViolation(subject));
      activeTrace()?.refused(ErrText.publishViolation(subject));
      this.err(ErrText.publishViolation(subject));
      return;
    }
    if (this.#permissions && !this.#permissions.canPublish(subject)) {
      this.violation(`Publish Violation - User ${JSON.stringify(this.user)}, Subject "${subject}"`);
      activeTrace()?.refused(ErrText.publishViolation(subject));
      this.err(ErrText.publishViolation(subject));
      return;
    }
    if (reply !== undefined && isReservedReply(reply)) {
      activeTrace()?.refused(ErrText.replyViolation(reply));
      this.err(ErrText.replyViolation(reply));
      return;
    }
    this.#ok();
    this.account.router.publishBytes(this, subject, reply, headers, bytes, payloadStart, end);
  }

  #subscribe(subject: string, queue: string | undefined, sid: string): void {
    if (queue === '_sys_') {
      this.err(ErrText.queueViolation(subject, queue));
      return;
    }
    const permissions = this.#permissions;
    if (permissions && !permissions.canSubscribe(subject, queue)) {
      const text =
        queue === undefined
          ? ErrText.subscriptionViolation(subject)
          : ErrText.queueViolation(subject, queue);
      this.violation(`Subscription Violation - User ${JSON.stringify(this.user)}, ${text}`);
      this.err(text);
      return;
    }
    if (this.#atSubscriptionLimit()) {
      this.err(ErrText.maxSubscriptions);
      return;
    }
    // A second SUB with a sid in use is ignored; the first subscription stays.
    if (!this.subscriptions.has(sid)) {
      const sub = new Subscription(this, subject, queue, sid);
      sub.refuses = permissions?.deliveryFilter(subject);
      if (!this.account.router.subscribe(sub)) {
        this.err(ErrText.invalidSubject);
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
    this.violation(`${ErrText.authorizationViolation}: ${reason}`);
    this.close(reason, ErrText.authorizationViolation);
  }

  #ok(): void {
    if (!this.verbose) return;
    this.outbound.writer.ok();
    this.queued('+OK');
  }

  #traceIn(op: string, args: string): void {
    this.host.logger.trace(`${this.label} - <<- [${op}${args}]`);
  }
}

/** The arguments a trace line shows after a frame's op. */
function frameArgs(frame: ClientFrame): string {
  switch (frame.op) {
    case 'PUB':
      return pubArgs(
        frame.subject,
        frame.reply,
        frame.payload.length + (frame.headers?.length ?? 0),
      );
    case 'SUB':
      return ` ${frame.subject}${frame.queue ? ` ${frame.queue}` : ''} ${frame.sid}`;
    case 'UNSUB':
      return ` ${frame.sid}${frame.max === undefined ? '' : ` ${frame.max}`}`;
    case 'CONNECT':
      return ` ${frame.json}`;
    default:
      return '';
  }
}

/** A publish's trace arguments: subject, reply if any, size of headers and payload. */
function pubArgs(subject: string, reply: string | undefined, size: number): string {
  return ` ${subject}${reply ? ` ${reply}` : ''} ${size}`;
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
