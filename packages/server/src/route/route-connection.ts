import type { Socket } from 'node:net';
import { isValidQueueName, isValidSubscribeSubject } from '@slipstream/protocol';
import type { Account } from '../accounts/account.js';
import {
  InterserverConnection,
  type InterserverHost,
} from '../interserver/interserver-connection.js';
import type { OutgoingMessage } from '../outgoing-message.js';
import { type Subscriber, Subscription } from '../subscription.js';
import { routeInterestKey } from './route-interest.js';
import { type RouteFrame, RouteParser } from './route-parser.js';

/**
 * An RS+ of another member: its interest, held in our account's router like a subscription (a
 * queue group's `weight` is the member count it announced), owned by that route's link for the
 * account.
 */
export class RouteSubscription extends Subscription {}

/** What a route needs of the server (the routes manager answers for it). */
export interface RouteHost extends InterserverHost {
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
export class RouteConnection extends InterserverConnection<RouteHost> {
  readonly start = this.lastActivity;
  /** The other member's server id, once its INFO or CONNECT named it. */
  remoteId = '';
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
  readonly #links = new Map<string, RouteLink>();
  // Route INFOs carry lists of URLs: nats-server allows long lines on non-client connections,
  // and no payload limit on routes (a member may allow larger payloads than we do).
  readonly #parser = new RouteParser((frame) => this.#frame(frame), 1024 * 1024, Infinity);

  constructor(
    cid: number,
    socket: Socket,
    host: RouteHost,
    /** True for a route we dialled. */
    readonly solicited: boolean,
  ) {
    super(cid, socket, host, { idLabel: 'rid', name: 'Route' });
  }

  /** Starts reading; `authTimeout` closes an accepted route that has not logged in by then. */
  begin(authTimeout: number | undefined): void {
    this.host.logger.info(`${this.label} - Route connection created`);
    this.keepalive.start();
    if (authTimeout !== undefined) {
      this.handshakeDeadline(authTimeout, 'Authentication Timeout', 'Authentication Timeout');
    }
  }

  /** The CONNECT logged in: the auth timer stops. */
  loggedIn(): void {
    this.stopHandshakeDeadline();
  }

  /** Names the other server in every later log line, as nats-server does. */
  nameRemote(name: string, id: string): void {
    this.remoteId = id;
    this.nameInLabel(name, id);
  }

  /** The handshake is over: interest and messages flow from now on. */
  register(): void {
    this.handshakeDone();
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

  /** RMSG (HMSG with headers) of `account`: true when it went out. */
  sendMessage(
    account: string,
    message: OutgoingMessage,
    subject: string,
    queues: readonly string[],
  ): boolean {
    return this.writeMessage('RMSG', `${account} `, message, subject, queues, this.headers);
  }

  protected parse(chunk: Uint8Array): void {
    this.#parser.parse(chunk);
  }

  /** The route is closed: its interest leaves the routers. */
  protected afterClose(reason: string): void {
    for (const sub of this.subscriptions.values()) {
      (sub.subscriber as RouteLink).account.router.unsubscribe(sub);
    }
    this.subscriptions.clear();
    this.host.closed(this, reason);
  }

  #frame(frame: RouteFrame): void {
    if (this.closed) return;
    const { logger, options } = this.host;
    if (options.trace && frame.op !== 'RMSG')
      logger.trace(`${this.label} - <<- [${describe(frame)}]`);
    if (this.keepaliveFrame(frame)) return;
    switch (frame.op) {
      case 'ERR':
        // nats-server closes a route on any -ERR it receives.
        logger.error(`${this.label} - Route Error '${frame.message}'`);
        this.close('Parse Error');
        return;
      case 'INFO':
      case 'CONNECT':
        this.host.handshake(this, frame);
        return;
    }
    if (!this.ready) {
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
    const account = this.host.account(accountName);
    if (!account) {
      if (this.host.options.debug) {
        this.host.logger.debug(
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
      this.host.logger.error(`${this.label} - Could not insert subscription: invalid subject`);
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
      if (!this.host.account(held.account)) continue;
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
    const { logger, options } = this.host;
    if (options.trace) {
      const queues = frame.queues.length > 0 ? ` queues=${frame.queues.join(',')}` : '';
      const reply = frame.reply ? ` ${frame.reply}` : '';
      logger.trace(
        `${this.label} - <<- [RMSG ${frame.account} ${frame.subject}${reply}${queues} ${size}]`,
      );
    }
    this.countIn(size);
    const account = this.host.account(frame.account);
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
