/**
 * The leaf node room: our server as a leaf of other servers (the `remotes` it connects to) and as
 * their hub (the leaf node port), speaking nats-server 2.9.10's leaf protocol. `leaf-nodes.ts`
 * (this file) owns the connections and decides which interest goes to which of them;
 * `leaf-connection.ts` is one connection's wire, `leaf-accept.ts` and `leaf-remote.ts` the two
 * halves of the handshake, `leaf-interest.ts` what one connection has announced, and
 * `leaf-parser.ts` the protocol's frames.
 */
import { createServer, type Server, type Socket } from 'node:net';
import type { SecureContext } from 'node:tls';
import { createInbox } from '@slipstream/protocol';
import type { Account } from '../accounts/account.js';
import { infoApiLevel } from '../api-level.js';
import type { Identity } from '../auth/authenticator.js';
import type { ClientAuthenticator } from '../auth/client-authenticator.js';
import { newNonce } from '../auth/nkey.js';
import { secretMatches } from '../auth/secret.js';
import type { InterserverServer } from '../interserver/interserver-server.js';
import { listen } from '../listen.js';
import type { Logger } from '../logger.js';
import type { FlushQueue } from '../outbound.js';
import type { Subscription } from '../subscription.js';
import { secureContextFor } from '../tls/secure-context.js';
import type { TrafficStats } from '../traffic-stats.js';
import { AcceptHandshake, type LeafCredentials, type LeafLogin } from './leaf-accept.js';
import {
  type LeafConnection as Connection,
  LeafConnection,
  type LeafHandshake,
  type LeafHost,
  LeafSubscription,
} from './leaf-connection.js';
import { interestKey, LOOP_DETECTION_PREFIX } from './leaf-interest.js';
import type { ResolvedLeafNodeOptions } from './leaf-options.js';
import { RemoteLeaf } from './leaf-remote.js';
import { acceptTls } from './leaf-tls.js';
import type { LeafView, MonitoredLeafNodes } from './leaf-view.js';

/** What the leaf nodes need of the server. */
export interface LeafServer extends InterserverServer {
  readonly options: InterserverServer['options'] & {
    readonly leafNodes: ResolvedLeafNodeOptions | undefined;
    readonly jetstream: { readonly domain: string | undefined } | undefined;
  };
  /** The server's JetStream, when it runs: told when an account's leaf connection is up. */
  readonly jetstream: { leafConnected(account: string): void } | undefined;
  /** The server's name and version as its INFO gives them. */
  readonly info: { readonly server_name?: string; readonly version: string; readonly go?: string };
}

export class LeafNodes implements LeafHost, MonitoredLeafNodes {
  readonly #server: LeafServer;
  readonly #options: ResolvedLeafNodeOptions;
  readonly #connections = new Set<LeafConnection>();
  /** The registered connections of each account, which its interest goes to. */
  readonly #byAccount = new Map<Account, Set<LeafConnection>>();
  /** Each account's loop detection subject, made on first use. */
  readonly #loopSubjects = new Map<Account, string>();
  /** The router listeners of each account with leaf connections. */
  readonly #listening = new Map<Account, () => void>();
  readonly #remotes: RemoteLeaf[];
  readonly #remoteOf = new Map<LeafConnection, RemoteLeaf>();
  /** How the server's clients log in (users, accounts' users, operator mode), if they must. */
  readonly #authenticator: ClientAuthenticator | undefined;
  #listener: Server | undefined;
  /** The leaf node port's TLS context, when it has TLS. */
  readonly #secureContext: SecureContext | undefined;
  #port: number | undefined;
  #closing = false;

  constructor(
    server: LeafServer,
    options: ResolvedLeafNodeOptions,
    authenticator: ClientAuthenticator | undefined,
  ) {
    this.#server = server;
    this.#options = options;
    this.#authenticator = authenticator;
    this.#secureContext = options.tls && secureContextFor(options.tls);
    const remoteHost = this.#remoteHost();
    this.#remotes = options.remotes.map((remote) => new RemoteLeaf(remote, remoteHost));
  }

  get logger(): Logger {
    return this.#server.logger;
  }

  get flushQueue(): FlushQueue {
    return this.#server.flushQueue;
  }

  get stats(): TrafficStats {
    return this.#server.stats;
  }

  get options(): LeafServer['options'] {
    return this.#server.options;
  }

  /** The bound leaf node port, when one is open. */
  get port(): number | undefined {
    return this.#port;
  }

  get host(): string {
    return this.#options.host ?? this.#server.options.host;
  }

  get settings(): ResolvedLeafNodeOptions {
    return this.#options;
  }

  /** Registered connections, in either role. */
  get count(): number {
    let count = 0;
    for (const leaf of this.#connections) if (leaf.ready) count++;
    return count;
  }

  /** Opens the leaf node port (when configured), then starts connecting to the remotes. */
  async start(): Promise<void> {
    const port = this.#options.port;
    if (port !== undefined) {
      const listener = createServer({ noDelay: true }, (socket) => this.#accept(socket));
      this.#port = await listen(listener, this.host, port);
      this.#listener = listener;
      listener.on('error', (error) =>
        this.logger.error(`Leafnode listener error: ${error.message}`),
      );
      this.logger.info(`Listening for leafnode connections on ${this.host}:${this.#port}`);
    }
    for (const remote of this.#remotes) remote.start();
  }

  async close(): Promise<void> {
    this.#closing = true;
    for (const remote of this.#remotes) remote.stop();
    for (const leaf of [...this.#connections]) leaf.close('Server Shutdown');
    for (const stop of this.#listening.values()) stop();
    this.#listening.clear();
    const listener = this.#listener;
    if (listener) await new Promise<void>((resolve) => listener.close(() => resolve()));
  }

  /** The registered connections for /leafz, optionally of one account only. */
  views(account?: string, withSubscriptions = false): LeafView[] {
    const views: LeafView[] = [];
    for (const leaf of this.#connections) {
      if (!leaf.ready || !leaf.account) continue;
      if (account && leaf.account.name !== account) continue;
      views.push({
        account: leaf.account.name,
        ip: leaf.ip,
        port: leaf.port,
        rtt: leaf.rtt,
        inMsgs: leaf.inMsgs,
        outMsgs: leaf.outMsgs,
        inBytes: leaf.inBytes,
        outBytes: leaf.outBytes,
        subscriptionCount: leaf.subscriptions.size,
        subjects: withSubscriptions ? [...leaf.subscriptions.values()].map((s) => s.subject) : [],
      });
    }
    return views;
  }

  // LeafHost

  registered(leaf: LeafConnection): void {
    const account = leaf.account!;
    let members = this.#byAccount.get(account);
    if (!members) {
      members = new Set();
      this.#byAccount.set(account, members);
      this.#listen(account);
    }
    members.add(leaf);
    this.logger.info(
      `${leaf.label} - Leafnode connection ${leaf.solicited ? 'to' : 'from'} "${leaf.remoteName}" registered for account: ${account.name}`,
    );
    // Everything the other side should hear of, then our loop detection subject.
    const entries: { key: string; subject: string; count: number }[] = [];
    for (const sub of account.router.sublist.all()) {
      if (sub.closed || !this.#announces(leaf, sub)) continue;
      entries.push({
        key: interestKey(sub.subject, sub.queue),
        subject: sub.subject,
        count: sub.queue !== undefined && sub instanceof LeafSubscription ? sub.weight : 1,
      });
    }
    // The sources of the account's subject mappings too: a publish there is mapped here, so
    // the other side must send it (nats-server's initLeafNodeSmapAndSendSubs does the same).
    for (const { source } of account.mappings?.list ?? []) {
      entries.push({ key: source, subject: source, count: 1 });
    }
    const loop = this.loopSubject(account);
    entries.push({ key: loop, subject: loop, count: 1 });
    leaf.interest!.announceAll(entries);
    // Mirrors and sources from across the link ask again (nats-server's checkInternalSyncConsumers).
    this.#server.jetstream?.leafConnected(account.name);
  }

  interestChanged(leaf: LeafConnection, sub: LeafSubscription, delta: number): void {
    const members = leaf.account && this.#byAccount.get(leaf.account);
    if (!members) return;
    for (const other of members) {
      if (other !== leaf && this.#announces(other, sub)) {
        other.interest!.update(
          interestKey(sub.subject, sub.queue),
          sub.subject,
          sub.queue !== undefined,
          delta,
        );
      }
    }
  }

  closed(leaf: LeafConnection, reason: string): void {
    this.#connections.delete(leaf);
    const account = leaf.account;
    const members = account && this.#byAccount.get(account);
    members?.delete(leaf);
    if (account && members?.size === 0) {
      this.#byAccount.delete(account);
      this.#listening.get(account)?.();
      this.#listening.delete(account);
    }
    this.logger.info(`${leaf.label} - Leafnode connection closed: ${reason}`);
    const remote = this.#remoteOf.get(leaf);
    this.#remoteOf.delete(leaf);
    if (remote && !this.#closing) remote.lost();
  }

  loopSubject(account: Account): string {
    let subject = this.#loopSubjects.get(account);
    if (subject === undefined) {
      subject = createInbox(LOOP_DETECTION_PREFIX.slice(0, -1));
      this.#loopSubjects.set(account, subject);
    }
    return subject;
  }

  loopFound(leaf: LeafConnection): void {
    this.#remoteOf.get(leaf)?.delayAfterLoop();
  }

  /**
   * Whether `sub` is interest `leaf` should hear of (nats-server's updateLeafNodes and
   * updateSmap): never its own; and a spoke (a connection to our hub) hears only of local
   * interest and of the leaves for which we are the hub, so interest never travels hub to hub.
   */
  #announces(leaf: LeafConnection, sub: Subscription): boolean {
    const owner = sub.subscriber;
    if (owner === leaf) return false;
    if (leaf.isSpoke && owner instanceof LeafConnection && owner.isSpoke) {
      return sub.subject.startsWith(LOOP_DETECTION_PREFIX);
    }
    return true;
  }

  /** Local subscribe and unsubscribe in `account` reach its leaf connections. */
  #listen(account: Account): void {
    const change = (sub: Subscription, delta: number) => {
      // A leaf's own subscriptions are announced by interestChanged, with their weights.
      if (sub instanceof LeafSubscription) return;
      const members = this.#byAccount.get(account);
      if (!members) return;
      const key = interestKey(sub.subject, sub.queue);
      for (const leaf of members) {
        if (this.#announces(leaf, sub)) {
          leaf.interest!.update(key, sub.subject, sub.queue !== undefined, delta);
        }
      }
    };
    const stopSubscribe = account.router.onSubscribe((sub) => change(sub, 1));
    const stopUnsubscribe = account.router.onUnsubscribe((sub) => change(sub, -1));
    this.#listening.set(account, () => {
      stopSubscribe();
      stopUnsubscribe();
    });
  }

  #open(
    socket: Socket,
    handshake: LeafHandshake,
    solicited: boolean,
    remote?: RemoteLeaf,
    cid = this.#server.newCid(),
  ): Connection {
    const leaf = new LeafConnection(cid, socket, this, handshake, solicited);
    this.#connections.add(leaf);
    if (remote) this.#remoteOf.set(leaf, remote);
    leaf.start();
    return leaf;
  }

  /** A leaf node that came through the WebSocket listener (which did any TLS). */
  acceptWebSocket(socket: Socket): void {
    this.#accept(socket, true);
  }

  #accept(socket: Socket, webSocket = false): void {
    if (this.#closing || socket.destroyed || socket.remoteAddress === undefined) {
      socket.destroy();
      return;
    }
    const tls = webSocket ? undefined : this.#options.tls;
    const nonce = newNonce();
    const handshake = new AcceptHandshake(
      {
        leafInfo: (cid, nonce, extra) => this.#info(cid, nonce, extra),
        login: (credentials, nonce, ip) => this.#login(credentials, nonce, ip),
        accepted: () => [...this.#connections].filter((leaf) => !leaf.solicited && leaf.ready),
        authTimeout: this.#options.authTimeout ?? this.#server.options.authTimeout,
        logError: (message) => this.logger.error(message),
        logWarn: (message) => this.logger.warn(message),
      },
      nonce,
      tls !== undefined,
    );
    if (!tls) {
      this.#open(socket, handshake, false);
      return;
    }
    const cid = this.#server.newCid();
    const ip = socket.remoteAddress;
    acceptTls(socket, this.#info(cid, nonce), this.#secureContext!, tls.verify, tls.timeout).then(
      (secure) => {
        if (this.#closing) secure.destroy();
        else this.#open(secure, handshake, false, undefined, cid);
      },
      (error: Error) =>
        this.logger.error(
          `${ip}:${socket.remotePort} - lid:${cid} - TLS handshake error: ${error.message}`,
        ),
    );
  }

  /**
   * nats-server's leafnode INFO: auth always required (a leaf must send CONNECT to be bound to an
   * account), `leafnode_urls` (how a leaf tells this port from a client port) and
   * `info_on_connect` (it then waits for our second INFO, with `connect_info`); from 2.12 on the
   * API level, as the client port's INFO (v2.12.0 leafnode.go:769).
   */
  #info(cid: number, nonce: string, extra: Record<string, unknown> = {}): string {
    const info = this.#server.info;
    const domain = this.#server.options.jetstream?.domain;
    const url = `${this.#advertisedHost()}:${this.#port}`;
    return JSON.stringify({
      server_id: this.#server.serverId,
      server_name: info.server_name ?? this.#server.serverId,
      version: info.version,
      go: info.go,
      host: this.host,
      port: this.#port,
      headers: true,
      auth_required: true,
      ...(this.#options.tls
        ? { tls_required: true, ...(this.#options.tls.verify ? { tls_verify: true } : {}) }
        : {}),
      max_payload: this.#server.options.maxPayload,
      ...(this.#server.options.jetstream ? { jetstream: true } : {}),
      ...(domain ? { domain } : {}),
      client_id: cid,
      nonce,
      // Without a leaf node port (leaves only through the WebSocket port) there is none to list,
      // but the field is there: it tells a leaf node port's INFO from a client port's.
      leafnode_urls: this.#port === undefined ? [] : [url],
      proto: 1,
      info_on_connect: true,
      ...extra,
      ...infoApiLevel(),
    });
  }

  #advertisedHost(): string {
    const host = this.host;
    if (host === '0.0.0.0' || host === '') return '127.0.0.1';
    return host.includes(':') ? `[${host}]` : host;
  }

  /**
   * Whom a leaf logs in as (nats-server's isLeafNodeAuthorized): with `leafnodes.authorization`
   * users, the matching user, bound to its account; else, when clients must log in, as a
   * client would (a user of `authorization` or of an account, a user JWT in operator mode),
   * with that user's account and permissions; else anyone, into `account` ($G).
   */
  #login(
    credentials: LeafCredentials,
    nonce: string,
    ip: string,
  ): LeafLogin | undefined | Promise<LeafLogin | undefined> {
    const users = this.#options.users;
    const accounts = this.#server.accounts;
    const bound = (name: string, permissions: LeafLogin['permissions']) => {
      const account = accounts.get(name);
      return account && { account, permissions };
    };
    if (users) {
      // The user by name, then its password, which may be a bcrypt hash (checked off the loop).
      const found = users.find((u) => u.user === credentials.user);
      if (!found) return undefined;
      const login = (matches: boolean) =>
        matches ? bound(found.account || '$G', found.permissions) : undefined;
      const matches = secretMatches(found.password, credentials.pass);
      return matches instanceof Promise ? matches.then(login) : login(matches);
    }
    const authenticator = this.#authenticator;
    if (!authenticator) return bound(this.#options.account, undefined);
    const bind = (identity: Identity | undefined) =>
      identity && bound(identity.account, identity.permissions);
    const identity = authenticator.authenticate(credentials, nonce, undefined, ip);
    return identity instanceof Promise ? identity.then(bind) : bind(identity);
  }

  #remoteHost() {
    const server = this.#server;
    const self = this;
    return {
      get reconnectInterval() {
        return self.#options.reconnectInterval;
      },
      get debug() {
        return server.options.debug;
      },
      get serverId() {
        return server.serverId;
      },
      get serverName() {
        return server.info.server_name ?? server.serverId;
      },
      get version() {
        return server.info.version;
      },
      get jetstreamDomain() {
        return server.options.jetstream?.domain;
      },
      get jetstream() {
        return server.options.jetstream !== undefined;
      },
      get closing() {
        return self.#closing;
      },
      account: (name: string) => server.accounts.get(name),
      open: (socket: Socket, handshake: LeafHandshake, remote: RemoteLeaf) => {
        const leaf = this.#open(socket, handshake, true, remote);
        return leaf;
      },
      logInfo: (message: string) => server.logger.info(message),
      logError: (message: string) => server.logger.error(message),
      logDebug: (message: string) => server.logger.debug(message),
    };
  }
}
