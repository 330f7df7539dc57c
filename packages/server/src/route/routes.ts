/**
 * The cluster room: our server as a member of a cluster, speaking nats-server 2.9.10's route
 * protocol (v2, accounts on every line). `routes.ts` (this file) owns the route port, the routes
 * we dial, the handshake (login, duplicate routes, gossip of members) and our interest told to
 * the other members; `route-connection.ts` is one route's wire, `route-interest.ts` what we
 * announced per account and `route-parser.ts` the protocol's frames.
 */
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { networkInterfaces } from 'node:os';
import type { SecureContext } from 'node:tls';
import type { Account } from '../accounts/account.js';
import { Bridge } from '../accounts/forward.js';
import { ResponseBridge } from '../accounts/service-responses.js';
import { sameText } from '../auth/secret.js';
import type { InterserverServer } from '../interserver/interserver-server.js';
import { acceptServerTls, dialServerTls } from '../interserver/server-tls.js';
import { listen } from '../listen.js';
import type { Logger } from '../logger.js';
import type { FlushQueue } from '../outbound.js';
import type { Subscription } from '../subscription.js';
import { secureContextFor } from '../tls/secure-context.js';
import type { TrafficStats } from '../traffic-stats.js';
import { RouteConnection, type RouteHost, RouteLink } from './route-connection.js';
import { RouteInterest } from './route-interest.js';
import type { ResolvedClusterOptions } from './route-options.js';
import type { RouteFrame } from './route-parser.js';
import type { MonitoredRoutes, RouteView } from './route-view.js';

/** What the routes need of the server. */
export interface RouteServer extends InterserverServer {
  /** The server's name and version as its INFO gives them, and its client port. */
  readonly info: {
    readonly server_name?: string;
    readonly version: string;
    readonly go?: string;
    readonly port: number;
  };
  /** The client URLs the members know changed: clients get a new INFO. */
  connectUrlsChanged(): void;
}

/** nats-server's route INFO (the fields we read; unknown ones are ignored). */
interface RouteInfo {
  server_id?: unknown;
  server_name?: unknown;
  host?: unknown;
  port?: unknown;
  ip?: unknown;
  cluster?: unknown;
  cluster_dynamic?: unknown;
  headers?: unknown;
  auth_required?: unknown;
  ldm?: unknown;
  connect_urls?: unknown;
  import?: unknown;
  export?: unknown;
}

/** nats-server's route CONNECT (connectInfo); a client's has `lang`, a gateway's `gateway`. */
interface RouteConnect {
  cluster_dynamic?: unknown;
  user?: unknown;
  pass?: unknown;
  name?: unknown;
  cluster?: unknown;
  headers?: unknown;
  lang?: unknown;
  gateway?: unknown;
}

/** nats-server's RouteProtoV2: accounts on RS+/RS-/RMSG. */
const ROUTE_PROTOCOL = 2;
/** A random wait added to each reconnect, so two members do not cross their attempts in step. */
const RECONNECT_JITTER = 100;

export class Routes implements RouteHost, MonitoredRoutes {
  readonly #server: RouteServer;
  readonly #options: ResolvedClusterOptions;
  /** Every route, registered or still in its handshake. */
  readonly #connections = new Set<RouteConnection>();
  /** The registered route of each member, by server id. */
  readonly #members = new Map<string, RouteConnection>();
  readonly #interest = new Map<Account, RouteInterest>();
  readonly #stopListening: (() => void)[] = [];
  /** URLs being dialled, so a member is not dialled twice at once. */
  readonly #dialling = new Set<string>();
  /** URLs that led back to ourselves. */
  readonly #self = new Set<string>();
  readonly #timers = new Set<NodeJS.Timeout>();
  /** The route port's TLS context, with cluster TLS. */
  readonly #secureContext: SecureContext | undefined;
  #listener: Server | undefined;
  #port: number | undefined;
  /** The cluster's name: ours, or another member's once ours, generated, gave way to it. */
  #name: string;
  #dynamicName: boolean;
  #closing = false;

  constructor(server: RouteServer, options: ResolvedClusterOptions) {
    this.#server = server;
    this.#options = options;
    this.#secureContext = options.tls && secureContextFor(options.tls);
    this.#name = options.name;
    this.#dynamicName = options.dynamicName;
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

  get options(): RouteServer['options'] {
    return this.#server.options;
  }

  get settings(): ResolvedClusterOptions {
    return this.#options;
  }

  get name(): string {
    return this.#name;
  }

  /** The bound route port, once open. */
  get port(): number | undefined {
    return this.#port;
  }

  get host(): string {
    return this.#options.host ?? this.#server.options.host;
  }

  /** Registered routes. */
  get count(): number {
    return this.#members.size;
  }

  /**
   * The client URLs of the other members, for our clients' INFO (empty under no_advertise, as
   * nats-server then neither tells nor is told).
   */
  memberClientUrls(): string[] {
    if (this.#options.noAdvertise) return [];
    const urls = new Set<string>();
    for (const route of this.#members.values()) for (const url of route.connectUrls) urls.add(url);
    return [...urls];
  }

  /** Our client URLs as the other members (and our clients) are told them. */
  ownClientUrls(): string[] {
    const host = this.#server.options.host;
    const port = this.#server.info.port;
    return hostsOf(host).map((h) => `${h.includes(':') ? `[${h}]` : h}:${port}`);
  }

  async start(): Promise<void> {
    // Interest is counted from the start, so a route that registers later gets all of it.
    for (const account of this.#server.accounts.values()) this.#count(account);
    const listener = createServer({ noDelay: true }, (socket) => this.#accept(socket));
    this.#port = await listen(listener, this.host, this.#options.port);
    this.#listener = listener;
    listener.on('error', (error) => this.logger.error(`Route listener error: ${error.message}`));
    this.logger.info(`Cluster name is ${this.#name}`);
    if (this.#dynamicName) {
      this.logger.warn('Cluster name was dynamically generated, consider setting one');
    }
    this.logger.info(`Listening for route connections on ${this.host}:${this.#port}`);
    for (const url of this.#options.routes) this.#dial(url, true);
  }

  /**
   * Operator mode: accounts a resolver added count their interest for the routes, and take the
   * interest the routes announced in them before we had them.
   */
  accountsAdded(): void {
    for (const account of this.#server.accounts.values()) {
      if (!this.#interest.has(account)) this.#count(account);
    }
    for (const route of this.#members.values()) route.accountsAdded();
  }

  async close(): Promise<void> {
    this.#closing = true;
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
    for (const route of [...this.#connections]) route.close('Server Shutdown');
    for (const stop of this.#stopListening) stop();
    const listener = this.#listener;
    if (listener) await new Promise<void>((resolve) => listener.close(() => resolve()));
  }

  views(withSubscriptions = false): RouteView[] {
    return [...this.#members.values()].map((route) => ({
      rid: route.cid,
      remoteId: route.remoteId,
      remoteName: route.remoteName,
      didSolicit: route.solicited,
      isConfigured: route.url !== undefined && this.#isExplicit(route.url),
      ip: route.ip,
      port: route.port,
      start: route.start,
      lastActivity: route.lastActivity,
      rtt: route.rtt,
      pendingSize: route.pendingBytes,
      inMsgs: route.inMsgs,
      outMsgs: route.outMsgs,
      inBytes: route.inBytes,
      outBytes: route.outBytes,
      subscriptionCount: route.subscriptions.size,
      subjects: withSubscriptions
        ? [...route.subscriptions.values()].map((sub) => sub.subject)
        : [],
      permissions: route.permissions,
    }));
  }

  // RouteHost

  account(name: string): Account | undefined {
    return this.#server.accounts.get(name);
  }

  handshake(route: RouteConnection, frame: Extract<RouteFrame, { op: 'INFO' | 'CONNECT' }>): void {
    let json: unknown;
    try {
      json = JSON.parse(frame.json);
      if (typeof json !== 'object' || json === null) throw new Error('not an object');
    } catch (error) {
      this.logger.error(
        `${route.label} - Route ${frame.op} parse error: ${(error as Error).message}`,
      );
      route.close('Parse Error', 'Protocol Violation');
      return;
    }
    if (frame.op === 'CONNECT') this.#connect(route, json as RouteConnect);
    else this.#info(route, json as RouteInfo);
  }

  closed(route: RouteConnection, reason: string): void {
    this.#connections.delete(route);
    const registered = this.#members.get(route.remoteId) === route;
    if (registered) this.#members.delete(route.remoteId);
    this.logger.info(`${route.label} - Router connection closed: ${reason}`);
    if (registered && route.connectUrls.length > 0) this.#server.connectUrlsChanged();
    if (this.#closing) return;
    // nats-server's reconnect: a route we dialled, or one that won a duplicate resolution, is
    // dialled again unless the member is still reachable through another route.
    const url = route.url;
    if (!url || !(route.solicited || route.retry)) return;
    if (this.#members.has(route.remoteId) || this.#self.has(url.host)) return;
    this.#dial(url, this.#isExplicit(url), this.#options.reconnectInterval);
  }

  // The handshake

  /** An accepted route's CONNECT (nats-server's processRouteConnect and isRouterAuthorized). */
  #connect(route: RouteConnection, connect: RouteConnect): void {
    if (route.solicited || route.remoteId !== '') {
      route.close('Protocol Violation', 'Unknown Protocol Operation');
      return;
    }
    if (typeof connect.lang === 'string' && connect.lang !== '') {
      this.logger.error(`${route.label} - attempted to connect to route port`);
      route.close('Wrong Port', 'attempted to connect to route port');
      return;
    }
    if (typeof connect.gateway === 'string' && connect.gateway !== '') {
      const text = `Rejecting connection from gateway "${connect.gateway}" on the Route port`;
      this.logger.error(`${route.label} - ${text}`);
      route.close('Wrong Gateway', text);
      return;
    }
    const { user, password } = this.#options;
    if (user !== undefined) {
      const given = typeof connect.user === 'string' ? connect.user : undefined;
      const pass = typeof connect.pass === 'string' ? connect.pass : undefined;
      if (given !== user || pass === undefined || !sameText(password ?? '', pass)) {
        this.logger.error(`${route.label} - authentication error`);
        route.close('Authentication Failure', 'Authorization Violation');
        return;
      }
    }
    if (
      connect.cluster !== this.#name &&
      !this.#adoptName(route, connect.cluster, connect.cluster_dynamic)
    ) {
      const text = `Rejecting connection, cluster name "${String(connect.cluster)}" does not match "${this.#name}"`;
      this.logger.error(`${route.label} - ${text}`);
      route.close('Cluster Name Conflict', text);
      return;
    }
    route.loggedIn();
    route.remoteId = typeof connect.name === 'string' ? connect.name : '';
    route.headers = connect.headers === true;
  }

  /** nats-server's processRouteInfo. */
  #info(route: RouteConnection, info: RouteInfo): void {
    if (!route.solicited && route.remoteId === '') {
      // An accepted route speaks CONNECT first.
      this.logger.error(`${route.label} - authentication error`);
      route.close('Authentication Failure', 'Authorization Violation');
      return;
    }
    const id = typeof info.server_id === 'string' ? info.server_id : '';
    if (route.infoReceived) {
      // News of another member, or of this one: in lame duck mode, its clients' URLs are no
      // longer offered to ours (nats-server's removeConnectURLsAndSendINFOToClients).
      if (id !== '' && id !== route.remoteId) this.#implicit(info, id);
      else if (info.ldm === true && route.connectUrls.length > 0) {
        route.connectUrls = [];
        if (!this.#options.noAdvertise) this.#server.connectUrlsChanged();
      }
      return;
    }
    if (id === this.#server.serverId) {
      if (route.url) this.#self.add(route.url.host);
      route.close('Duplicate Route');
      return;
    }
    if (
      typeof info.cluster === 'string' &&
      info.cluster !== '' &&
      info.cluster !== this.#name &&
      !this.#adoptName(route, info.cluster, info.cluster_dynamic)
    ) {
      this.logger.error(
        `${route.label} - Rejecting route, cluster name "${info.cluster}" does not match "${this.name}"`,
      );
      route.close('Cluster Name Conflict');
      return;
    }
    const name = typeof info.server_name === 'string' ? info.server_name : '';
    if (!route.solicited && name !== '' && name === this.#server.info.server_name) {
      this.logger.error(`${route.label} - Remote server has a duplicate name: "${name}"`);
      route.close('Duplicate Server Name');
      return;
    }
    route.infoReceived = true;
    route.nameRemote(name, id);
    route.headers = info.headers === true;
    route.connectUrls = stringList(info.connect_urls);
    route.permissions = { import: info.import, export: info.export };
    const host = typeof info.host === 'string' ? info.host : '';
    const port = typeof info.port === 'number' ? info.port : 0;
    // A member listening on every interface is reached at the address its route came from.
    route.url ??= urlOf(isWildcard(host) ? route.ip : host, port);
    const existing = this.#members.get(id);
    if (existing) {
      // Both members dialled each other: keep the first, and let it be redialled should the
      // other side keep this one instead (nats-server's addRoute).
      existing.retry = true;
      existing.url ??= route.url;
      if (this.options.debug)
        this.logger.debug(`${route.label} - Detected duplicate remote route "${id}"`);
      route.close('Duplicate Route');
      return;
    }
    this.#members.set(id, route);
    route.register();
    if (this.options.debug) this.logger.debug(`${route.label} - Registering remote route "${id}"`);
    // All our interest, then the news of this member to the others, who connect to it in turn.
    for (const interest of this.#interest.values()) {
      for (const line of interest.lines()) route.send(line, `${line}\r\n`);
    }
    if (this.#members.size > 1) this.#gossip(route, info, host, port);
    if (route.connectUrls.length > 0 && !this.#options.noAdvertise)
      this.#server.connectUrlsChanged();
  }

  /**
   * nats-server's dynamic cluster names: a generated name of ours gives way to another member's
   * configured one, or to a greater generated one; the routes made under the old name go (they
   * reconnect under the new one). False when ours stays and the route must go.
   */
  #adoptName(route: RouteConnection, theirs: unknown, dynamic: unknown): boolean {
    if (typeof theirs !== 'string' || theirs === '' || !this.#dynamicName) return false;
    if (dynamic === true && this.#name >= theirs) return false;
    this.logger.info(`${route.label} - Cluster name changed from ${this.#name} to ${theirs}`);
    this.#name = theirs;
    this.#dynamicName = dynamic === true;
    for (const other of [...this.#connections]) {
      if (other !== route) other.close('Cluster Name Conflict');
    }
    this.#server.connectUrlsChanged();
    return true;
  }

  /** Tells the other members of a new one (nats-server's forwardNewRouteInfoToKnownServers). */
  #gossip(route: RouteConnection, info: RouteInfo, host: string, port: number): void {
    const ip =
      typeof info.ip === 'string' && info.ip !== ''
        ? info.ip
        : `nats-route://${joinHostPort(route.ip, port || Number(route.url?.port))}/`;
    const json = JSON.stringify({ ...info, nonce: undefined, ip, host, port });
    for (const other of this.#members.values()) {
      if (other !== route) other.send(`INFO ${json}`, `INFO ${json}\r\n`);
    }
  }

  /** A member another told us of (nats-server's processImplicitRoute). */
  #implicit(info: RouteInfo, id: string): void {
    if (id === this.#server.serverId || this.#members.has(id)) return;
    const host = typeof info.host === 'string' ? info.host : '';
    const port = typeof info.port === 'number' ? info.port : 0;
    const configured = urlOf(host, port);
    if (this.#isExplicit(configured)) return;
    let url: URL;
    try {
      url = typeof info.ip === 'string' && info.ip !== '' ? new URL(info.ip) : configured;
    } catch {
      this.logger.error(`Error parsing URL from INFO: ${String(info.ip)}`);
      return;
    }
    if (info.auth_required === true && this.#options.user !== undefined) {
      url.username = encodeURIComponent(this.#options.user);
      url.password = encodeURIComponent(this.#options.password ?? '');
    }
    this.#dial(url, false);
  }

  #isExplicit(url: URL): boolean {
    return this.#options.routes.some((r) => r.host.toLowerCase() === url.host.toLowerCase());
  }

  // Connections

  #accept(socket: Socket): void {
    if (this.#closing || socket.destroyed || socket.remoteAddress === undefined) {
      socket.destroy();
      return;
    }
    const tls = this.#options.tls;
    if (!tls) {
      this.#accepted(socket);
      return;
    }
    const peer = `${socket.remoteAddress}:${socket.remotePort}`;
    // As nats-server's createRoute with cluster TLS: the handshake comes first, before any INFO,
    // and the other member must show a certificate our CA signed.
    acceptServerTls(socket, this.#secureContext!, true, tls.timeout).then(
      (secure) => {
        if (this.#closing) secure.destroy();
        else this.#accepted(secure);
      },
      (error: Error) => this.logger.error(`${peer} - TLS route handshake error: ${error.message}`),
    );
  }

  /** An accepted route is connected (TLS done, with cluster TLS): our INFO goes out. */
  #accepted(socket: Socket): void {
    const route = this.#open(socket, false);
    const info = this.#routeInfo();
    route.send(`INFO ${info}`, `INFO ${info}\r\n`);
    route.begin(
      this.#options.user !== undefined
        ? (this.#options.authTimeout ?? this.#server.options.authTimeout)
        : undefined,
    );
  }

  #open(socket: Socket, solicited: boolean): RouteConnection {
    const route = new RouteConnection(this.#server.newCid(), socket, this, solicited);
    this.#connections.add(route);
    return route;
  }

  /**
   * Dials `url` after `delay`: forever for an explicit route, else at most connect_retries more
   * times (nats-server's connectToRoute).
   */
  #dial(url: URL, forever: boolean, delay = 0, attempt = 1): void {
    if (this.#closing) return;
    const key = url.host;
    if (attempt === 1) {
      if (this.#dialling.has(key)) return;
      this.#dialling.add(key);
    }
    const failed = (error: Error) => {
      const text = `Error trying to connect to route (attempt ${attempt}): ${error.message}`;
      if (attempt === 1 || attempt % 60 === 0) this.logger.error(text);
      else if (this.options.debug) this.logger.debug(text);
      if (!forever && attempt > this.#options.connectRetries) {
        this.#dialling.delete(key);
        return;
      }
      this.#dial(url, forever, this.#options.reconnectInterval, attempt + 1);
    };
    const timer = setTimeout(
      () => {
        this.#timers.delete(timer);
        if (this.#closing) return;
        const host = url.hostname.replace(/^\[|\]$/g, '');
        const socket = createConnection({ host, port: Number(url.port) });
        const refused = (error: Error) => {
          socket.destroy();
          failed(error);
        };
        socket.once('error', refused);
        socket.once('connect', () => {
          socket.off('error', refused);
          const tls = this.#options.tls;
          if (!tls) {
            this.#solicited(socket, url);
            return;
          }
          dialServerTls(socket, tls, host, tls.timeout).then(
            (secure) => this.#solicited(secure, url),
            (error: Error) => failed(new Error(`TLS route handshake error: ${error.message}`)),
          );
        });
      },
      delay + (delay > 0 ? Math.random() * RECONNECT_JITTER : 0),
    );
    this.#timers.add(timer);
  }

  /** A route we dialled is connected (TLS done, with cluster TLS): CONNECT and INFO go out. */
  #solicited(socket: Socket, url: URL): void {
    this.#dialling.delete(url.host);
    if (this.#closing) {
      socket.destroy();
      return;
    }
    const route = this.#open(socket, true);
    route.url = url;
    route.begin(undefined);
    const user = url.username ? decodeURIComponent(url.username) : this.#options.user;
    const pass = url.username ? decodeURIComponent(url.password) : this.#options.password;
    const connect = JSON.stringify({
      echo: true,
      verbose: false,
      pedantic: false,
      ...(user ? { user } : {}),
      ...(pass ? { pass } : {}),
      tls_required: this.#options.tls !== undefined,
      headers: true,
      name: this.#server.serverId,
      cluster: this.#name,
      ...(this.#dynamicName ? { cluster_dynamic: true } : {}),
    });
    route.send(`CONNECT ${connect}`, `CONNECT ${connect}\r\n`);
    const info = this.#routeInfo();
    route.send(`INFO ${info}`, `INFO ${info}\r\n`);
  }

  /**
   * Lame duck mode: the other members stop offering our client URLs to their clients
   * (nats-server's sendLDMToRoutes); the routes stay until the shutdown.
   */
  lameDuck(): void {
    const info = this.#routeInfo({ ldm: true });
    for (const route of this.#members.values()) route.send(`INFO ${info}`, `INFO ${info}\r\n`);
  }

  /** Our route INFO (nats-server's routeInfo). */
  #routeInfo(extra: Record<string, unknown> = {}): string {
    const info = this.#server.info;
    return JSON.stringify({
      server_id: this.#server.serverId,
      server_name: info.server_name ?? this.#server.serverId,
      version: info.version,
      proto: ROUTE_PROTOCOL,
      go: info.go,
      host: this.host,
      port: this.#port,
      headers: true,
      ...(this.#options.user !== undefined ? { auth_required: true } : {}),
      ...(this.#options.tls ? { tls_required: true, tls_verify: true } : {}),
      max_payload: this.#server.options.maxPayload,
      cluster: this.#name,
      ...(this.#dynamicName ? { cluster_dynamic: true } : {}),
      ...(this.#options.noAdvertise ? {} : { connect_urls: this.ownClientUrls() }),
      ...extra,
    });
  }

  // Interest

  /**
   * Counts `account`'s interest as it changes and tells the routes: that of clients, internal
   * clients, leaf nodes and an exporter's reply subjects; not the other members' own (each
   * reaches every member itself) nor an import's bridge (each member runs its imports itself).
   */
  #count(account: Account): void {
    const interest = new RouteInterest(account.name, (line) => {
      for (const route of this.#members.values()) route.send(line, `${line}\r\n`);
    });
    this.#interest.set(account, interest);
    const counted = (sub: Subscription) =>
      !(sub.subscriber instanceof RouteLink) &&
      (!(sub.subscriber instanceof Bridge) || sub.subscriber instanceof ResponseBridge);
    for (const sub of account.router.sublist.all()) {
      if (!sub.closed && counted(sub)) interest.update(sub.subject, sub.queue, 1);
    }
    this.#stopListening.push(
      account.router.onSubscribe((sub) => {
        if (counted(sub)) interest.update(sub.subject, sub.queue, 1);
      }),
      account.router.onUnsubscribe((sub) => {
        if (counted(sub)) interest.update(sub.subject, sub.queue, -1);
      }),
    );
  }
}

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

function joinHostPort(host: string, port: number): string {
  return `${host.includes(':') ? `[${host}]` : host}:${port}`;
}

function isWildcard(host: string): boolean {
  return host === '' || host === '0.0.0.0' || host === '::';
}

function urlOf(host: string, port: number): URL {
  return new URL(`nats-route://${joinHostPort(host || '127.0.0.1', port)}`);
}

/** The addresses a listen host stands for: every interface's for a wildcard, as nats-server lists them. */
function hostsOf(host: string): string[] {
  if (host !== '0.0.0.0' && host !== '::' && host !== '') return [host];
  const found: string[] = [];
  for (const addresses of Object.values(networkInterfaces())) {
    for (const address of addresses ?? []) {
      if (!address.internal && (address.family === 'IPv4' || host === '::'))
        found.push(address.address);
    }
  }
  return found.length > 0 ? found : ['127.0.0.1'];
}
