import type { Socket } from 'node:net';
import {
  encodeSubject,
  hasWildcard,
  isValidQueueName,
  isValidSubscribeSubject,
} from '@slipstream/protocol';
import type { Account } from '../accounts/account.js';
import { InterserverProtocolError } from '../interserver/frame-reader.js';
import { Keepalive } from '../keepalive.js';
import type { Logger } from '../logger.js';
import { connectionOutbound, type FlushQueue, type Outbound } from '../outbound.js';
import type { OutgoingMessage } from '../outgoing-message.js';
import { type Subscriber, Subscription } from '../subscription.js';
import { deadline } from '../timer-delay.js';
import type { TrafficStats } from '../traffic-stats.js';
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
export interface LeafHost {
  readonly logger: Logger;
  readonly flushQueue: FlushQueue;
  readonly stats: TrafficStats;
  readonly options: {
    readonly debug: boolean;
    readonly trace: boolean;
    readonly maxPayload: number;
    readonly maxPending: number;
    readonly writeDeadline: number;
    readonly pingInterval: number;
    readonly pingMax: number;
  };
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
export class LeafConnection implements Subscriber {
  readonly echo = false;
  readonly noResponders = false;
  readonly ip: string;
  readonly port: number;
  /** nats-server's label: `<ip>:<port> - lid:<cid>`, then the other server's name once known. */
  label: string;
  account: Account | undefined;
  /** The other server's name (its id when it has none). */
  remoteName = '';
  /** True when the other side is the hub: we only send it our own (and our hub-side leaves') interest. */
  isSpoke: boolean;
  /** True once the other side may receive headers (its INFO or CONNECT said so). */
  headers = false;
  /**
   * What goes out and what interest is announced: our remote's deny lists and the hub's INFO
   * `import`/`export`; on the hub side the leaf user's permissions and the deny_pub of its CONNECT.
   */
  permissions = LeafPermissions.open();
  inMsgs = 0;
  inBytes = 0;
  outMsgs = 0;
  outBytes = 0;
  readonly subscriptions = new Map<string, LeafSubscription>();
  interest: AnnouncedInterest | undefined;
  readonly keepalive: Keepalive;
  readonly #host: LeafHost;
  readonly #socket: Socket;
  readonly #outbound: Outbound;
  readonly #parser: LeafParser;
  readonly #handshake: LeafHandshake;
  #ready = false;
  #closed = false;
  #stopAuthTimer: (() => void) | undefined;

  constructor(
    readonly cid: number,
    socket: Socket,
    host: LeafHost,
    handshake: LeafHandshake,
    /** True for a connection we made to a remote (we are its leaf, unless it says otherwise). */
    readonly solicited: boolean,
  ) {
    this.#host = host;
    this.#socket = socket;
    this.#handshake = handshake;
    this.isSpoke = solicited;
    this.ip = socket.remoteAddress ?? '';
    this.port = socket.remotePort ?? 0;
    this.label = `${this.ip}:${this.port} - lid:${cid}`;
    const options = host.options;
    // INFO and CONNECT of servers carry lists of URLs: allow long lines, as nats-server does
    // for its non-client connections.
    this.#parser = new LeafParser((frame) => this.#frame(frame), 1024 * 1024, options.maxPayload);
    this.#outbound = connectionOutbound(socket, host, this);
    this.keepalive = new Keepalive({
      interval: options.pingInterval,
      maxOutstanding: options.pingMax,
      sendPing: () => this.send('PING', 'PING\r\n'),
      stale: () => this.close('Stale Connection', 'Stale Connection'),
    });
    // A WebSocket remote's byte stream is no TCP socket.
    socket.setNoDelay?.(true);
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

  get name(): string {
    return this.remoteName;
  }

  start(): void {
    if (this.#host.options.debug) {
      this.#host.logger.debug(`${this.label} - Leafnode connection created`);
    }
    this.keepalive.start();
    this.#handshake.start(this);
  }

  /** Closes the connection unless the handshake is over by then (nats-server's auth timer). */
  handshakeDeadline(ms: number, reason: string, errText: string): void {
    this.#stopAuthTimer = deadline(ms, () => {
      if (!this.#ready) this.close(reason, errText);
    });
  }

  /** Names the other server in every later log line, as nats-server does. */
  nameRemote(name: string, id: string): void {
    this.remoteName = name || id;
    this.label = `${this.ip}:${this.port} - lid:${this.cid} - "${this.remoteName}"`;
  }

  /** The handshake is over, bound to `account`: interest flows from now on. */
  register(account: Account): void {
    this.#stopAuthTimer?.();
    this.account = account;
    this.#ready = true;
    this.interest = new AnnouncedInterest(
      (key, count) => this.#announce(key, count),
      (subject) => this.permissions.announce.allowsInterest(subject),
    );
    this.keepalive.connected();
    this.#host.registered(this);
  }

  /** Writes one protocol line (`text` ends with CRLF); `what` is what a trace shows. */
  send(what: string, text: string): void {
    if (this.#closed) return;
    this.#outbound.writer.bytes(encodeSubject(text));
    if (this.#host.options.trace) this.#host.logger.trace(`${this.label} - ->> [${what}]`);
    this.#outbound.queued();
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
    if (!this.#ready || this.#closed) return false;
    if (jetStreamDenied(subject) || !this.permissions.send.allows(subject)) return false;
    const headers = this.headers ? message.headers : undefined;
    // A JetStream delivery is routed on its deliver subject and shown with the stream's subject;
    // nats-server carries the latter across after an '@' at the end of the reply.
    const reply =
      message.reply !== undefined && message.subject !== subject
        ? `${message.reply}@${message.subject}`
        : message.reply;
    let args = subject;
    if (queues.length > 0) {
      args += reply === undefined ? ` | ${queues.join(' ')}` : ` + ${reply} ${queues.join(' ')}`;
    } else if (reply !== undefined) {
      args += ` ${reply}`;
    }
    const size = (headers?.length ?? 0) + message.payload.length;
    const line = headers
      ? `HMSG ${args} ${headers.length} ${size}`
      : `LMSG ${args} ${message.payload.length}`;
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

  removeSubscription(): void {
    // A leaf subscription has no UNSUB max: nothing removes it but LS- or the end.
  }

  /**
   * Closes the connection: its interest leaves the router (the other leaves hear LS-), and
   * `errText` goes out as -ERR first.
   */
  close(reason: string, errText?: string): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#stopAuthTimer?.();
    this.keepalive.stop();
    const socket = this.#socket;
    socket.off('data', this.#onData);
    if (errText !== undefined && !socket.destroyed) {
      this.#outbound.writer.err(errText);
      if (this.#host.options.trace)
        this.#host.logger.trace(`${this.label} - ->> [-ERR '${errText}']`);
    }
    this.#outbound.flushFinal();
    this.#outbound.dispose();
    socket.end();
    const stopLinger = deadline(this.#host.options.writeDeadline, () => socket.destroy());
    socket.once('close', stopLinger);
    const router = this.account?.router;
    if (router) {
      for (const sub of this.subscriptions.values()) {
        router.unsubscribe(sub);
        if (this.#ready) this.#host.interestChanged(this, sub, -sub.weight);
      }
    }
    this.subscriptions.clear();
    this.#host.closed(this, reason);
  }

  readonly #onData = (chunk: Buffer): void => {
    this.keepalive.activity();
    try {
      this.#parser.parse(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
    } catch (error) {
      if (error instanceof InterserverProtocolError) {
        this.#host.logger.error(`${this.label} - Leafnode parser ERROR: ${error.message}`);
        this.close('Protocol Violation', error.text);
        return;
      }
      // A bug of ours must cost one connection, never the server.
      this.#host.logger.error(`${this.label} - Internal error: ${(error as Error).stack}`);
      this.close('Protocol Violation');
    }
  };

  #frame(frame: LeafFrame): void {
    if (this.#closed) return;
    const { logger, options } = this.#host;
    if (options.trace && frame.op !== 'LMSG')
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
        // nats-server closes a leaf connection on any -ERR; a loop the other side found delays
        // our next attempt.
        logger.error(`${this.label} - Leafnode Error '${frame.message}'`);
        if (frame.message.includes('Loop detected')) this.#host.loopFound(this);
        this.close('Parse Error');
        return;
    }
    if (this.#handshake.frame(this, frame)) return;
    if (!this.#ready) {
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
    if (subject === this.#host.loopSubject(account)) {
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
        this.#host.interestChanged(this, existing, delta);
      }
      return;
    }
    if (!isValidSubscribeSubject(subject) || (queue !== undefined && !isValidQueueName(queue))) {
      this.#host.logger.error(`${this.label} - Could not insert subscription: invalid subject`);
      this.send("-ERR 'Invalid Subscription'", "-ERR 'Invalid Subscription'\r\n");
      return;
    }
    const sub = new LeafSubscription(this, subject, queue, key);
    sub.weight = weight;
    if (!account.router.subscribe(sub)) return;
    this.subscriptions.set(key, sub);
    this.#host.interestChanged(this, sub, weight);
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
    this.#host.logger.error(
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
    this.#host.interestChanged(this, sub, -sub.weight);
  }

  #message(frame: Extract<LeafFrame, { op: 'LMSG' }>): void {
    const size = (frame.headers?.length ?? 0) + frame.payload.length;
    if (this.#host.options.trace) {
      const queues = frame.queues.length > 0 ? ` queues=${frame.queues.join(',')}` : '';
      this.#host.logger.trace(
        `${this.label} - <<- [LMSG ${frame.subject}${frame.reply ? ` ${frame.reply}` : ''}${queues} ${size}]`,
      );
    }
    this.inMsgs++;
    this.inBytes += size;
    this.#host.stats.inMsgs++;
    this.#host.stats.inBytes += size;
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
    this.#host.logger.error(`${this.label} - ${text}`);
    this.#host.loopFound(this);
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

const CRLF = new Uint8Array([0x0d, 0x0a]);
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
