import type { Socket } from 'node:net';
import { encodeSubject, isValidQueueName, isValidSubscribeSubject } from '@slipstream/protocol';
import type { Account } from '../accounts/account.js';
import { InterserverProtocolError } from '../interserver/frame-reader.js';
import { Keepalive } from '../keepalive.js';
import type { Logger } from '../logger.js';
import { connectionOutbound, type FlushQueue, type Outbound } from '../outbound.js';
import type { OutgoingMessage } from '../outgoing-message.js';
import { type Subscriber, Subscription } from '../subscription.js';
import { deadline } from '../timer-delay.js';
import type { TrafficStats } from '../traffic-stats.js';
import { routeInterestKey } from './route-interest.js';
import { type RouteFrame, RouteParser } from './route-parser.js';

/**
 * An RS+ of another member: its interest, held in our account's router like a subscription (a
 * queue group's `weight` is the member count it announced), owned by that route's link for the
 * account.
 */
export class RouteSubscription extends Subscription {}

/** What a route needs of the server (the routes manager answers for it). */
export interface RouteHost {
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
  /** The account a route names, if we have it. */
  account(name: string): Account | undefined;
  /** An INFO or CONNECT: the handshake (or, after it, news of other members). */
  handshake(route: RouteConnection, frame: Extract<RouteFrame, { op: 'INFO' | 'CONNECT' }>): void;
  /** The connection is gone (after its interest left the routers). */
  closed(route: RouteConnection, reason: string): void;
}

/**
 * One route's face in one account's router: the subscriber its RS+ are held by and messages of
 * that account are handed to, at most once per publish with the queue groups it is to serve.
 */
export class RouteLink implements Subscriber {
  readonly echo = false;
  readonly noResponders = false;
  readonly clusterMember = true;

  constructor(
    readonly route: RouteConnection,
    readonly account: Account,
  ) {}

  get cid(): number {
    return this.route.cid;
  }

  get name(): string {
    return this.route.remoteName;
  }

  deliver(): boolean {
    // The router hands this link's messages to deliverRemote.
    return false;
  }

  deliverRemote(
    message: OutgoingMessage,
    subject: string,
    queues: readonly string[],
    publisher: Subscriber,
  ): boolean {
    // What one member sent us goes to our own subscribers (and leaf nodes) only: every member
    // has a route to every other, so the sender reached them itself.
    if (publisher instanceof RouteLink) return false;
    return this.route.sendMessage(this.account.name, message, subject, queues);
  }

  removeSubscription(): void {
    // A route's interest has no UNSUB max: only RS- or the end of the route removes it.
  }
}

/**
 * One route, accepted or solicited: the wire and the other member's interest. The handshake
 * (INFO, CONNECT, login, duplicate routes, gossip) is the host's; once it calls `register`,
 * RS+/RS- go into the accounts' routers and RMSG/HMSG are routed there.
 */
export class RouteConnection {
  readonly ip: string;
  readonly port: number;
  readonly start = Date.now();
  /** When the other side last sent something. */
  lastActivity = this.start;
  /** nats-server's label: `<ip>:<port> - rid:<cid>`, then the other server's name once known. */
  label: string;
  /** The other member's server id, once its INFO or CONNECT named it. */
  remoteId = '';
  remoteName = '';
  /** The other member's client URLs (its INFO's connect_urls), which our clients are told of. */
  connectUrls: string[] = [];
  /** Its route URL, to reconnect to (the one we dialled, or made from its INFO). */
  url: URL | undefined;
  /** True once its INFO came: a later INFO is news of other members. */
  infoReceived = false;
  /** True when the other side may receive headers. */
  headers = false;
  /** Reconnect when this route is lost (nats-server's retry: it won a duplicate resolution). */
  retry = false;
  /** Its INFO's import and export permissions, as given (for /routez). */
  permissions: { import?: unknown; export?: unknown } = {};
  inMsgs = 0;
  inBytes = 0;
  outMsgs = 0;
  outBytes = 0;
  /** Its interest by `<account> <subject>[ <queue>]`. */
  readonly subscriptions = new Map<string, RouteSubscription>();
  /**
   * Its interest in accounts we do not have yet (operator mode fetches an account at its first
   * login), held until the account comes, as nats-server registers such an account at once.
   */
  readonly #unknownAccounts = new Map<
    string,
    { account: string; subject: string; queue: string | undefined; weight: number }
  >();
  readonly keepalive: Keepalive;
  readonly #links = new Map<string, RouteLink>();
  readonly #host: RouteHost;
  readonly #socket: Socket;
  readonly #outbound: Outbound;
  readonly #parser: RouteParser;
  #ready = false;
  #closed = false;
  #stopAuthTimer: (() => void) | undefined;

  constructor(
    readonly cid: number,
    socket: Socket,
    host: RouteHost,
    /** True for a route we dialled. */
    readonly solicited: boolean,
  ) {
    this.#host = host;
    this.#socket = socket;
    this.ip = socket.remoteAddress ?? '';
    this.port = socket.remotePort ?? 0;
    this.label = `${this.ip}:${this.port} - rid:${cid}`;
    const options = host.options;
    // Route INFOs carry lists of URLs: nats-server allows long lines on non-client connections,
    // and no payload limit on routes (a member may allow larger payloads than we do).
    this.#parser = new RouteParser((frame) => this.#frame(frame), 1024 * 1024, Infinity);
    this.#outbound = connectionOutbound(socket, host, this);
    this.keepalive = new Keepalive({
      interval: options.pingInterval,
      maxOutstanding: options.pingMax,
      sendPing: () => this.send('PING', 'PING\r\n'),
      stale: () => this.close('Stale Connection', 'Stale Connection'),
    });
    socket.setNoDelay(true);
    socket.on('data', this.#onData);
    socket.on('error', (error) => {
      if (options.debug) host.logger.debug(`${this.label} - Socket error: ${error.message}`);
      this.close('Read Error');
    });
    socket.on('end', () => this.close('Client Closed'));
    socket.on('close', () => this.close('Client Closed'));
  }

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

  /** Starts reading; `authTimeout` closes an accepted route that has not logged in by then. */
  begin(authTimeout: number | undefined): void {
    this.#host.logger.info(`${this.label} - Route connection created`);
    this.keepalive.start();
    if (authTimeout !== undefined) {
      this.#stopAuthTimer = deadline(authTimeout, () => {
        if (!this.#ready) this.close('Authentication Timeout', 'Authentication Timeout');
      });
    }
  }

  /** The CONNECT logged in: the auth timer stops. */
  loggedIn(): void {
    this.#stopAuthTimer?.();
  }

  /** Names the other server in every later log line, as nats-server does. */
  nameRemote(name: string, id: string): void {
    this.remoteId = id;
    this.remoteName = name || id;
    this.label = `${this.ip}:${this.port} - rid:${this.cid} - "${this.remoteName}"`;
  }

  /** The handshake is over: interest and messages flow from now on. */
  register(): void {
    this.#stopAuthTimer?.();
    this.#ready = true;
    this.keepalive.connected();
  }

  /** This route's subscriber in `account`'s router. */
  link(account: Account): RouteLink {
    let link = this.#links.get(account.name);
    if (!link) {
      link = new RouteLink(this, account);
      this.#links.set(account.name, link);
    }
    return link;
  }

  /** Writes one protocol line (`text` ends with CRLF); `what` is what a trace shows. */
  send(what: string, text: string): void {
    if (this.#closed) return;
    this.#outbound.writer.bytes(encodeSubject(text));
    if (this.#host.options.trace) this.#host.logger.trace(`${this.label} - ->> [${what}]`);
    this.#outbound.queued();
  }

  /** RMSG (HMSG with headers) of `account`: true when it went out. */
  sendMessage(
    account: string,
    message: OutgoingMessage,
    subject: string,
    queues: readonly string[],
  ): boolean {
    if (!this.#ready || this.#closed) return false;
    const headers = this.headers ? message.headers : undefined;
    // A JetStream delivery is routed on its deliver subject and shown with the stream's subject;
    // nats-server carries the latter across after an '@' at the end of the reply.
    const reply =
      message.reply !== undefined && message.subject !== subject
        ? `${message.reply}@${message.subject}`
        : message.reply;
    let args = `${account} ${subject}`;
    if (queues.length > 0) {
      args += reply === undefined ? ` | ${queues.join(' ')}` : ` + ${reply} ${queues.join(' ')}`;
    } else if (reply !== undefined) {
      args += ` ${reply}`;
    }
    const size = (headers?.length ?? 0) + message.payload.length;
    const line = headers
      ? `HMSG ${args} ${headers.length} ${size}`
      : `RMSG ${args} ${message.payload.length}`;
    const writer = this.#outbound.writer;
    writer.bytes(encodeSubject(`${line}\r\n`));
    if (headers) writer.bytes(headers);
    writer.bytes(message.payload);
    writer.bytes(CRLF);
    if (this.#host.options.trace) this.#host.logger.trace(`${this.label} - ->> [${line}]`);
    this.outMsgs++;
    this.outBytes += size;
    this.#host.stats.outMsgs++;
    this.#host.stats.outBytes += size;
    this.#outbound.queued();
    return true;
  }

  /** Closes the route: its interest leaves the routers, and `errText` goes out as -ERR first. */
  close(reason: string, errText?: string): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#stopAuthTimer?.();
    this.keepalive.stop();
    const socket = this.#socket;
    socket.off('data', this.#onData);
    if (errText !== undefined && !socket.destroyed) {
      this.#outbound.writer.err(errText);
      if (this.#host.options.trace) {
        this.#host.logger.trace(`${this.label} - ->> [-ERR '${errText}']`);
      }
    }
    this.#outbound.flushFinal();
    this.#outbound.dispose();
    socket.end();
    const stopLinger = deadline(this.#host.options.writeDeadline, () => socket.destroy());
    socket.once('close', stopLinger);
    for (const sub of this.subscriptions.values()) {
      (sub.subscriber as RouteLink).account.router.unsubscribe(sub);
    }
    this.subscriptions.clear();
    this.#host.closed(this, reason);
  }

  readonly #onData = (chunk: Buffer): void => {
    this.keepalive.activity();
    this.lastActivity = Date.now();
    try {
      this.#parser.parse(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
    } catch (error) {
      if (error instanceof InterserverProtocolError) {
        this.#host.logger.error(`${this.label} - Route parser ERROR: ${error.message}`);
        this.close('Protocol Violation', error.text);
        return;
      }
      // A bug of ours must cost one connection, never the server.
      this.#host.logger.error(`${this.label} - Internal error: ${(error as Error).stack}`);
      this.close('Protocol Violation');
    }
  };

  #frame(frame: RouteFrame): void {
    if (this.#closed) return;
    const { logger, options } = this.#host;
    if (options.trace && frame.op !== 'RMSG')
      logger.trace(`${this.label} - <<- [${describe(frame)}]`);
    switch (frame.op) {
      case 'PING':
        this.send('PONG', 'PONG\r\n');
        return;
      case 'PONG':
        this.keepalive.pong();
        return;
      case 'OK':
        return;
      case 'ERR':
        // nats-server closes a route on any -ERR it receives.
        logger.error(`${this.label} - Route Error '${frame.message}'`);
        this.close('Parse Error');
        return;
      case 'INFO':
      case 'CONNECT':
        this.#host.handshake(this, frame);
        return;
    }
    if (!this.#ready) {
      // Interest or messages before the handshake is over.
      this.close('Protocol Violation', 'Authorization Violation');
      return;
    }
    switch (frame.op) {
      case 'RS+':
        this.#remoteSub(frame.account, frame.subject, frame.queue, frame.weight);
        return;
      case 'RS-':
        this.#remoteUnsub(frame.account, frame.subject, frame.queue);
        return;
      case 'RMSG':
        this.#message(frame);
        return;
    }
  }

  #remoteSub(accountName: string, subject: string, queue: string | undefined, weight: number) {
    const key = `${accountName} ${routeInterestKey(subject, queue)}`;
    const account = this.#host.account(accountName);
    if (!account) {
      if (this.#host.options.debug) {
        this.#host.logger.debug(
          `${this.label} - Unknown account "${accountName}" for remote subject "${subject}"`,
        );
      }
      this.#unknownAccounts.set(key, { account: accountName, subject, queue, weight });
      return;
    }
    const existing = this.subscriptions.get(key);
    if (existing) {
      // Only a queue's weight changes; a repeated plain RS+ means nothing new.
      if (queue !== undefined) existing.weight = weight;
      return;
    }
    if (!isValidSubscribeSubject(subject) || (queue !== undefined && !isValidQueueName(queue))) {
      this.#host.logger.error(`${this.label} - Could not insert subscription: invalid subject`);
      this.send("-ERR 'Invalid Subscription'", "-ERR 'Invalid Subscription'\r\n");
      return;
    }
    const sub = new RouteSubscription(this.link(account), subject, queue, key);
    sub.weight = weight;
    if (!account.router.subscribe(sub)) return;
    this.subscriptions.set(key, sub);
  }

  /** Accounts were added: the interest held for them goes into their routers. */
  accountsAdded(): void {
    for (const [key, held] of this.#unknownAccounts) {
      if (!this.#host.account(held.account)) continue;
      this.#unknownAccounts.delete(key);
      this.#remoteSub(held.account, held.subject, held.queue, held.weight);
    }
  }

  #remoteUnsub(accountName: string, subject: string, queue: string | undefined): void {
    const key = `${accountName} ${routeInterestKey(subject, queue)}`;
    this.#unknownAccounts.delete(key);
    const sub = this.subscriptions.get(key);
    if (!sub) return;
    this.subscriptions.delete(key);
    (sub.subscriber as RouteLink).account.router.unsubscribe(sub);
  }

  #message(frame: Extract<RouteFrame, { op: 'RMSG' }>): void {
    const size = (frame.headers?.length ?? 0) + frame.payload.length;
    const { logger, options, stats } = this.#host;
    if (options.trace) {
      const queues = frame.queues.length > 0 ? ` queues=${frame.queues.join(',')}` : '';
      const reply = frame.reply ? ` ${frame.reply}` : '';
      logger.trace(
        `${this.label} - <<- [RMSG ${frame.account} ${frame.subject}${reply}${queues} ${size}]`,
      );
    }
    this.inMsgs++;
    this.inBytes += size;
    stats.inMsgs++;
    stats.inBytes += size;
    const account = this.#host.account(frame.account);
    if (!account) {
      if (options.debug) {
        logger.debug(
          `${this.label} - Unknown account "${frame.account}" for routed message on subject: "${frame.subject}"`,
        );
      }
      return;
    }
    let reply = frame.reply;
    let shown: string | undefined;
    // A JetStream delivery that crossed: `<ack reply>@<stream subject>`.
    if (reply?.startsWith(JS_ACK_PREFIX)) {
      const at = reply.lastIndexOf('@');
      if (at !== -1 && at < reply.length - 1) {
        shown = reply.slice(at + 1);
        reply = reply.slice(0, at);
      }
    }
    account.router.routeForwarded(
      this.link(account),
      frame.subject,
      reply,
      frame.headers,
      frame.payload,
      frame.queues,
      shown,
    );
  }
}

const CRLF = new Uint8Array([0x0d, 0x0a]);
const JS_ACK_PREFIX = '$JS.ACK.';

function describe(frame: RouteFrame): string {
  switch (frame.op) {
    case 'INFO':
    case 'CONNECT':
      return `${frame.op} ${frame.json}`;
    case 'RS+':
      return frame.queue === undefined
        ? `RS+ ${frame.account} ${frame.subject}`
        : `RS+ ${frame.account} ${frame.subject} ${frame.queue} ${frame.weight}`;
    case 'RS-':
      return `RS- ${frame.account} ${routeInterestKey(frame.subject, frame.queue)}`;
    case 'ERR':
      return `-ERR '${frame.message}'`;
    case 'OK':
      return '+OK';
    default:
      return frame.op;
  }
}
