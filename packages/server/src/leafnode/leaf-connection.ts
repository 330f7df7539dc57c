import type { Socket } from 'node:net';
import { hasWildcard, isValidQueueName, isValidSubscribeSubject } from '@slipstream/protocol';
import type { Account } from '../accounts/account.js';
import {
  InterserverConnection,
  type InterserverHost,
} from '../interserver/interserver-connection.js';
import type { OutgoingMessage } from '../outgoing-message.js';
import { type Subscriber, Subscription } from '../subscription.js';
import {
  AnnouncedInterest,
  interestKey,
  jetStreamDenied,
  LOOP_DETECTION_PREFIX,
} from './leaf-interest.js';
import { type LeafFrame, LeafParser } from './leaf-parser.js';
import { LeafPermissions } from './leaf-permissions.js';

/**
 * An LS+ of the other server: its interest, held in our account's router like a subscription
 * (a queue group's `weight` is the member count it announced).
 */
export class LeafSubscription extends Subscription {}

/** What a leaf connection needs of the server (the leaf node manager answers for it). */
export interface LeafHost extends InterserverHost {
  readonly options: InterserverHost['options'] & { readonly maxPayload: number };
  /** The handshake is over and the account is bound: the connection starts carrying interest. */
  registered(leaf: LeafConnection): void;
  /** The other server's interest changed by `delta` members (LS+, LS-, a new queue weight). */
  interestChanged(leaf: LeafConnection, sub: LeafSubscription, delta: number): void;
  /** The connection is gone (after its subscriptions left the router). */
  closed(leaf: LeafConnection, reason: string): void;
  /** The subject of `account` whose LS+ coming back to us means the servers form a loop. */
  loopSubject(account: Account): string;
  /** A loop was found on this connection (by us or by the other side). */
  loopFound(leaf: LeafConnection): void;
}

/** One side's part of the handshake: which it is (accepting or soliciting) decides the steps. */
export interface LeafHandshake {
  /** A frame before the handshake is over; true when it was the handshake's. */
  frame(leaf: LeafConnection, frame: LeafFrame): boolean;
  /** The socket is ready (the accepting side sends INFO now). */
  start(leaf: LeafConnection): void;
}

/**
 * nats-server's leaf "no echo" and leaf-to-leaf rules are in the router (a message never goes
 * back to the connection it came from); what stays here is the wire: the handshake's frames
 * through a `LeafHandshake`, LS+/LS- into our account's router as `LeafSubscription`s, LMSG/HMSG
 * routed with the queue groups the other side chose, our interest announced through
 * `AnnouncedInterest` and messages out as LMSG/HMSG, at most once per publish.
 */
export class LeafConnection extends InterserverConnection<LeafHost> implements Subscriber {
  readonly echo = false;
  readonly noResponders = false;
  account: Account | undefined;
  /** True when the other side is the hub: we only send it our own (and our hub-side leaves') interest. */
  isSpoke: boolean;
  /** True once the other side may receive headers (its INFO or CONNECT said so). */
  headers = false;
  /**
   * What goes out and what interest is announced: our remote's deny lists and the hub's INFO
   * `import`/`export`; on the hub side the leaf user's permissions and the deny_pub of its CONNECT.
   */
  permissions = LeafPermissions.open();
  readonly subscriptions = new Map<string, LeafSubscription>();
  interest: AnnouncedInterest | undefined;
  readonly #parser: LeafParser;
  readonly #handshake: LeafHandshake;

  constructor(
    cid: number,
    socket: Socket,
    host: LeafHost,
    handshake: LeafHandshake,
    /** True for a connection we made to a remote (we are its leaf, unless it says otherwise). */
    readonly solicited: boolean,
  ) {
    super(cid, socket, host, { idLabel: 'lid', name: 'Leafnode' });
    this.#handshake = handshake;
    this.isSpoke = solicited;
    // INFO and CONNECT of servers carry lists of URLs: allow long lines, as nats-server does
    // for its non-client connections.
    this.#parser = new LeafParser(
      (frame) => this.#frame(frame),
      1024 * 1024,
      host.options.maxPayload,
    );
  }

  get name(): string {
    return this.remoteName;
  }

  start(): void {
    if (this.host.options.debug) {
      this.host.logger.debug(`${this.label} - Leafnode connection created`);
    }
    this.keepalive.start();
    this.#handshake.start(this);
  }

  /** Names the other server in every later log line, as nats-server does. */
  nameRemote(name: string, id: string): void {
    this.nameInLabel(name, id);
  }

  /** The handshake is over, bound to `account`: interest flows from now on. */
  register(account: Account): void {
    this.account = account;
    this.interest = new AnnouncedInterest(
      (key, count) => this.#announce(key, count),
      (subject) => this.permissions.announce.allowsInterest(subject),
    );
    this.handshakeDone();
    this.host.registered(this);
  }

  deliver(): boolean {
    // The router hands this connection's messages to deliverRemote.
    return false;
  }

  deliverRemote(
    message: OutgoingMessage,
    subject: string,
    queues: readonly string[],
    _publisher: Subscriber,
  ): boolean {
    if (jetStreamDenied(subject) || !this.permissions.send.allows(subject)) return false;
    return this.writeMessage('LMSG', '', message, subject, queues, this.headers);
  }

  removeSubscription(): void {
    // A leaf subscription has no UNSUB max: nothing removes it but LS- or the end.
  }

  protected parse(chunk: Uint8Array): void {
    this.#parser.parse(chunk);
  }

  /** The connection is closed: its interest leaves the router (the other leaves hear LS-). */
  protected afterClose(reason: string): void {
    const router = this.account?.router;
    if (router) {
      for (const sub of this.subscriptions.values()) {
        router.unsubscribe(sub);
        if (this.ready) this.host.interestChanged(this, sub, -sub.weight);
      }
    }
    this.subscriptions.clear();
    this.host.closed(this, reason);
  }

  #frame(frame: LeafFrame): void {
    if (this.closed) return;
    const { logger, options } = this.host;
    if (options.trace && frame.op !== 'LMSG')
      logger.trace(`${this.label} - <<- [${describe(frame)}]`);
    if (this.keepaliveFrame(frame)) return;
    if (frame.op === 'ERR') {
      // nats-server closes a leaf connection on any -ERR; a loop the other side found delays
      // our next attempt.
      logger.error(`${this.label} - Leafnode Error '${frame.message}'`);
      if (frame.message.includes('Loop detected')) this.host.loopFound(this);
      this.close('Parse Error');
      return;
    }
    if (this.#handshake.frame(this, frame)) return;
    if (!this.ready) {
      // Interest or messages before the handshake is over: nats-server has no account to put them in.
      this.close('Protocol Violation', 'Authorization Violation');
      return;
    }
    switch (frame.op) {
      case 'LS+':
        this.#leafSub(frame.subject, frame.queue, frame.weight);
        return;
      case 'LS-':
        this.#leafUnsub(interestKey(frame.subject, frame.queue));
        return;
      case 'LMSG':
        this.#message(frame);
        return;
      default:
        // An INFO after the handshake (nats-server sends one when its URLs change) is taken by
        // the handshake; a CONNECT now is one too many.
        this.close('Protocol Violation', 'Unknown Protocol Operation');
    }
  }

  #leafSub(subject: string, queue: string | undefined, weight: number): void {
    const account = this.account!;
    if (subject === this.host.loopSubject(account)) {
      this.loopDetected(true);
      return;
    }
    if (!this.#mayAnnounce(subject)) return;
    const key = interestKey(subject, queue);
    const existing = this.subscriptions.get(key);
    if (existing) {
      // Only a queue's weight changes; a repeated plain LS+ means nothing new.
      if (queue !== undefined && weight !== existing.weight) {
        const delta = weight - existing.weight;
        existing.weight = weight;
        this.host.interestChanged(this, existing, delta);
      }
      return;
    }
    if (!isValidSubscribeSubject(subject) || (queue !== undefined && !isValidQueueName(queue))) {
      this.host.logger.error(`${this.label} - Could not insert subscription: invalid subject`);
      this.send("-ERR 'Invalid Subscription'", "-ERR 'Invalid Subscription'\r\n");
      return;
    }
    const sub = new LeafSubscription(this, subject, queue, key);
    sub.weight = weight;
    if (!account.router.subscribe(sub)) return;
    this.subscriptions.set(key, sub);
    this.host.interestChanged(this, sub, weight);
  }

  /**
   * Whether the other side may have interest in `subject`: a literal one must be a subject we
   * may send it (nats-server's processLeafSub; loop detection and gateway reply subjects
   * aside). A hub that announces more than we may send is ignored, as our permissions came
   * from it; a leaf that does is told and cut off.
   */
  #mayAnnounce(subject: string): boolean {
    if (hasWildcard(subject) || UNCHECKED_INTEREST.some((prefix) => subject.startsWith(prefix))) {
      return true;
    }
    if (this.permissions.send.allows(subject)) return true;
    if (this.isSpoke) return false;
    const text = `Permissions Violation for Subscription to "${subject}"`;
    this.host.logger.error(
      `${this.label} - Subscription Violation on "${subject}" - Check other side configuration`,
    );
    this.close('Protocol Violation', text);
    return false;
  }

  #leafUnsub(key: string): void {
    const sub = this.subscriptions.get(key);
    if (!sub) return;
    this.subscriptions.delete(key);
    this.account!.router.unsubscribe(sub);
    this.host.interestChanged(this, sub, -sub.weight);
  }

  #message(frame: Extract<LeafFrame, { op: 'LMSG' }>): void {
    const size = (frame.headers?.length ?? 0) + frame.payload.length;
    if (this.host.options.trace) {
      const queues = frame.queues.length > 0 ? ` queues=${frame.queues.join(',')}` : '';
      this.host.logger.trace(
        `${this.label} - <<- [LMSG ${frame.subject}${frame.reply ? ` ${frame.reply}` : ''}${queues} ${size}]`,
      );
    }
    this.countIn(size);
    let reply = frame.reply;
    let shown: string | undefined;
    // A JetStream delivery that crossed: `<ack reply>@<stream subject>` (nats-server does this
    // for $JS.ACK replies only).
    if (reply?.startsWith(JS_ACK_PREFIX)) {
      const at = reply.lastIndexOf('@');
      if (at !== -1 && at < reply.length - 1) {
        shown = reply.slice(at + 1);
        reply = reply.slice(0, at);
      }
    }
    // The account's subject mappings apply to what another server sends, as to a client's publish.
    const subject = this.account!.mapped(frame.subject);
    this.account!.router.routeForwarded(
      this,
      subject,
      reply,
      frame.headers,
      frame.payload,
      frame.queues,
      shown,
    );
  }

  /**
   * Our own loop-detection subject came back: the servers form a cycle. nats-server's words,
   * sent to the other side when we found it; a soliciting side waits 30 s before trying again.
   */
  loopDetected(found: boolean): void {
    const account = this.account?.name ?? '$G';
    const text = `Loop detected for leafnode account="${account}". Delaying attempt to reconnect for 30s`;
    this.host.logger.error(`${this.label} - ${text}`);
    this.host.loopFound(this);
    this.close('Protocol Violation', found ? text : undefined);
  }

  #announce(key: string, count: number): void {
    if (count > 0) {
      const line = key.includes(' ') ? `LS+ ${key} ${count}` : `LS+ ${key}`;
      this.send(line, `${line}\r\n`);
    } else {
      this.send(`LS- ${key}`, `LS- ${key}\r\n`);
    }
  }
}

/** Interest no permission applies to: loop detection, and gateways' reply prefixes. */
const UNCHECKED_INTEREST = [LOOP_DETECTION_PREFIX, '$GR.', '_GR_.'];
const JS_ACK_PREFIX = '$JS.ACK.';

function describe(frame: LeafFrame): string {
  switch (frame.op) {
    case 'INFO':
    case 'CONNECT':
      return `${frame.op} ${frame.json}`;
    case 'LS+':
      return frame.queue === undefined
        ? `LS+ ${frame.subject}`
        : `LS+ ${frame.subject} ${frame.queue} ${frame.weight}`;
    case 'LS-':
      return `LS- ${interestKey(frame.subject, frame.queue)}`;
    case 'ERR':
      return `-ERR '${frame.message}'`;
    case 'OK':
      return '+OK';
    default:
      return frame.op;
  }
}
