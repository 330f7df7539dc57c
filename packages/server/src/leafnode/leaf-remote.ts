import { connect, isIP, type Socket } from 'node:net';
import type { Account } from '../accounts/account.js';
import { afterWait } from '../timer-delay.js';
import type { LeafConnection, LeafHandshake } from './leaf-connection.js';
import { signWithCredentials } from './leaf-credentials.js';
import type { ResolvedRemote } from './leaf-options.js';
import type { LeafFrame } from './leaf-parser.js';
import { LeafPermissions, subjectLists } from './leaf-permissions.js';
import { readFirstLine, upgradeToHub } from './leaf-tls.js';
import { openLeafWebSocket } from './leaf-websocket.js';

/** nats-server waits this long after a loop was detected before soliciting again. */
const LOOP_RECONNECT_DELAY = 30_000;
/** How long the remote has to send its INFO after the TCP connect (nats-server's is 1 s; be lenient). */
const INFO_WAIT = 2_000;

/** What a remote needs of the server. */
export interface RemoteHost {
  readonly reconnectInterval: number;
  readonly debug: boolean;
  readonly serverId: string;
  readonly serverName: string;
  /** The version our INFO advertises, which our CONNECT gives too. */
  readonly version: string;
  readonly jetstreamDomain: string | undefined;
  readonly jetstream: boolean;
  account(name: string): Account | undefined;
  /** Wraps a connected socket in a leaf connection (with a fresh cid) and starts it. */
  open(socket: Socket, handshake: LeafHandshake, remote: RemoteLeaf): LeafConnection;
  logInfo(message: string): void;
  logError(message: string): void;
  logDebug(message: string): void;
  readonly closing: boolean;
}

/**
 * One `leafnodes.remotes` entry: connects to the hub's leaf node port, URL after URL, and
 * reconnects after the configured interval whenever the connection is lost (30 s after a loop),
 * as nats-server's connectToRemoteLeafNode; each new connection announces all our interest
 * again, so a hub restart loses no subscription. The hub's cluster members' leaf node URLs
 * (its INFO's `leafnode_urls`) join the list, so the leaf fails over to another member.
 */
export class RemoteLeaf {
  readonly #host: RemoteHost;
  #urls: URL[];
  /**
   * The user and password of the first configured URL that has them: a discovered URL (which
   * never carries any) logs in with them, as nats-server's saveUserPassword.
   */
  readonly #login: { user: string; pass: string } | undefined;
  /**
   * The first configured host that is a name, not an address: the TLS server name to check a
   * discovered URL's certificate against, as nats-server's saveTLSHostname.
   */
  readonly #tlsName: string | undefined;
  #current: URL | undefined;
  #attempts = 0;
  #nextDelay = 0;
  #timer: NodeJS.Timeout | undefined;
  #socket: Socket | undefined;
  connection: LeafConnection | undefined;

  constructor(
    readonly options: ResolvedRemote,
    host: RemoteHost,
  ) {
    this.#host = host;
    this.#urls = [...options.urls];
    if (!options.noRandomize) this.#urls.sort(() => Math.random() - 0.5);
    this.#login = loginOf(options.urls.find((url) => url.username !== ''));
    this.#tlsName = options.urls.find((url) => isIP(bareHost(url)) === 0)?.hostname;
  }

  /** The URL connected to (or being tried), without credentials, as /leafz and logs show it. */
  get url(): URL | undefined {
    return this.#current;
  }

  /** The user and password to log in with on the current URL: its own, else the configured ones. */
  get login(): { user: string; pass: string } | undefined {
    return loginOf(this.#current) ?? this.#login;
  }

  /**
   * The hub's INFO listed its cluster's leaf node URLs (`host:port`, `leafnode_urls`; for a
   * WebSocket remote, `ws_connect_urls`): as nats-server's updateLeafNodeURLs, the list becomes
   * the ones not configured, then the configured ones. Each INFO has the whole list.
   */
  hubUrls(leafNodeUrls: readonly string[], webSocketUrls: readonly string[]): void {
    if (leafNodeUrls.length === 0 && webSocketUrls.length === 0) return;
    const configured = this.options.urls;
    const webSocket = isWebSocket(configured[0]!);
    const scheme = webSocket ? (this.options.tls ? 'wss' : 'ws') : 'nats-leaf';
    const discovered: URL[] = [];
    for (const hostPort of webSocket ? webSocketUrls : leafNodeUrls) {
      let url: URL;
      try {
        url = new URL(`${scheme}://${hostPort}`);
      } catch {
        this.#host.logError(`Error parsing url "${hostPort}" of the hub's leafnode URLs`);
        continue;
      }
      if (!configured.some((known) => sameEndpoint(known, url))) discovered.push(url);
    }
    this.#urls = [...discovered, ...configured];
  }

  start(): void {
    this.#connect();
  }

  stop(): void {
    clearTimeout(this.#timer);
    this.#socket?.destroy();
  }

  /** The connection ended: try again after the interval (or the loop delay). */
  lost(): void {
    this.connection = undefined;
    const delay = this.#nextDelay || this.#host.reconnectInterval;
    this.#nextDelay = 0;
    this.#retry(delay);
  }

  /** A loop was found: the next attempt waits 30 s, as nats-server's. */
  delayAfterLoop(): void {
    this.#nextDelay = LOOP_RECONNECT_DELAY;
  }

  #retry(delay: number): void {
    if (this.#host.closing) return;
    afterWait(
      delay,
      () => this.#connect(),
      (timer) => {
        this.#timer = timer;
      },
    );
  }

  #pickUrl(): URL {
    // The URL tried last goes to the end of the list, as nats-server's pickNextURL.
    if (this.#current && this.#urls.length > 1 && sameEndpoint(this.#urls[0]!, this.#current)) {
      this.#urls.push(this.#urls.shift()!);
    }
    this.#current = this.#urls[0]!;
    return this.#current;
  }

  #connect(): void {
    if (this.#host.closing) return;
    const url = this.#pickUrl();
    const hostPort = `${url.hostname}:${url.port || defaultPort(url)}`;
    if (this.#host.debug) {
      this.#host.logDebug(`Trying to connect as leafnode to remote server on "${hostPort}"`);
    }
    if (isWebSocket(url)) {
      void this.#openWebSocket(url, hostPort);
      return;
    }
    const socket = connect({
      host: bareHost(url),
      port: Number(url.port || defaultPort(url)),
    });
    this.#socket = socket;
    const failed = (error: Error) => {
      this.#attempts++;
      const text = `Error trying to connect as leafnode to remote server "${hostPort}" (attempt ${this.#attempts}): ${error.message}`;
      // The first failure is an error, later ones (the hub staying down) only debug, as
      // nats-server reports connect errors.
      if (this.#attempts === 1) this.#host.logError(text);
      else this.#host.logDebug(text);
      socket.destroy();
      this.#retry(this.#host.reconnectInterval);
    };
    socket.once('error', failed);
    socket.once('connect', () => {
      socket.off('error', failed);
      void this.#greeted(socket, url, hostPort);
    });
  }

  async #openWebSocket(url: URL, hostPort: string): Promise<void> {
    let stream: Socket;
    try {
      stream = await openLeafWebSocket(url, this.options.tls, INFO_WAIT);
    } catch (error) {
      this.#attempts++;
      const text = `Error trying to connect as leafnode to remote server "${hostPort}" (attempt ${this.#attempts}): ${(error as Error).message}`;
      if (this.#attempts === 1) this.#host.logError(text);
      else this.#host.logDebug(text);
      this.#retry(this.#host.reconnectInterval);
      return;
    }
    await this.#greeted(stream, url, hostPort, true);
  }

  /**
   * The hub's INFO is read first, in the clear: it may ask for TLS (as may our options), and
   * then the leaf connection runs over the upgraded socket.
   */
  async #greeted(socket: Socket, url: URL, hostPort: string, webSocket = false): Promise<void> {
    let info: string;
    // A WebSocket remote did its TLS (wss) before the upgrade.
    let wantsTls = !webSocket && this.options.tls !== undefined;
    try {
      const line = await readFirstLine(socket, INFO_WAIT);
      if (!/^INFO\s/i.test(line))
        throw new Error(`expected INFO, got ${JSON.stringify(line.slice(0, 40))}`);
      info = line.slice(5).trim();
      wantsTls ||=
        !webSocket && (JSON.parse(info) as { tls_required?: unknown }).tls_required === true;
    } catch (error) {
      this.#host.logError(
        `Leafnode connection to "${hostPort}" failed: ${(error as Error).message}`,
      );
      socket.destroy();
      this.#retry(this.#host.reconnectInterval);
      return;
    }
    let leafSocket: Socket = socket;
    if (wantsTls) {
      try {
        const name = isIP(bareHost(url)) === 0 ? url.hostname : (this.#tlsName ?? url.hostname);
        leafSocket = await upgradeToHub(socket, this.options.tls ?? {}, name);
      } catch (error) {
        this.#host.logError(
          `TLS handshake error with leafnode "${hostPort}": ${(error as Error).message}`,
        );
        this.#retry(this.#host.reconnectInterval);
        return;
      }
    }
    if (this.#host.closing) {
      leafSocket.destroy();
      return;
    }
    this.#attempts = 0;
    this.connection = this.#host.open(
      leafSocket,
      new SolicitHandshake(this, this.#host, info, wantsTls || url.protocol === 'wss:'),
      this,
    );
    socket.resume();
  }
}

/** The fields of the hub's INFO a leaf reads (nats-server's Info); the others are ignored. */
interface HubInfo {
  server_id?: unknown;
  server_name?: unknown;
  client_id?: unknown;
  leafnode_urls?: unknown;
  ws_connect_urls?: unknown;
  nonce?: unknown;
  headers?: unknown;
  tls_required?: unknown;
  domain?: unknown;
  info_on_connect?: unknown;
  connect_info?: unknown;
  remote_account?: unknown;
  import?: unknown;
  export?: unknown;
}

/**
 * The soliciting side's half (nats-server's processLeafnodeInfo and sendLeafConnect): the hub's
 * first INFO (refused when it is not a leaf node port's: no client_id or leafnode_urls), our
 * CONNECT with the remote's credentials, and registration once the hub's `connect_info` INFO
 * comes (or at once, for a hub that does not send one).
 */
class SolicitHandshake implements LeafHandshake {
  readonly #remote: RemoteLeaf;
  readonly #host: RemoteHost;
  /** The hub's first INFO, read before the connection was made (see RemoteLeaf). */
  readonly #greeting: string;
  /** Whether the connection runs over TLS (CONNECT says so). */
  readonly #tls: boolean;
  #infoSeen = false;

  constructor(remote: RemoteLeaf, host: RemoteHost, firstInfo: string, tls: boolean) {
    this.#remote = remote;
    this.#host = host;
    this.#greeting = firstInfo;
    this.#tls = tls;
  }

  start(leaf: LeafConnection): void {
    const account = this.#host.account(this.#remote.options.account);
    if (!account) {
      this.#host.logError(
        `Unable to lookup account ${this.#remote.options.account} for solicited leafnode connection`,
      );
      leaf.close('Missing Account');
      return;
    }
    leaf.account = account;
    const { denyImports, denyExports } = this.#remote.options;
    leaf.permissions = LeafPermissions.fromHub(undefined, undefined, denyImports, denyExports);
    this.#host.logInfo(`${leaf.label} - Leafnode connection created for account: ${account.name}`);
    leaf.handshakeDeadline(
      INFO_WAIT * 5,
      'Stale Leaf Node Connection',
      'Stale Leaf Node Connection - Closing',
    );
    this.frame(leaf, { op: 'INFO', json: this.#greeting });
  }

  frame(leaf: LeafConnection, frame: LeafFrame): boolean {
    if (frame.op === 'CONNECT') {
      leaf.close('Protocol Violation', 'Unknown Protocol Operation');
      return true;
    }
    if (frame.op !== 'INFO') return false;
    let info: HubInfo;
    try {
      info = JSON.parse(frame.json) as HubInfo;
      if (typeof info !== 'object' || info === null) throw new Error('not an object');
    } catch (error) {
      this.#host.logError(`${leaf.label} - Leafnode INFO parse error: ${(error as Error).message}`);
      leaf.close('Protocol Violation', 'Protocol Violation');
      return true;
    }
    if (!this.#infoSeen) {
      this.#infoSeen = true;
      if (!this.#firstInfo(leaf, info)) return true;
    }
    this.#remote.hubUrls(strings(info.leafnode_urls), strings(info.ws_connect_urls));
    // Our login's permissions, for us to enforce (nats-server's processLeafnodeInfo).
    if (info.import !== undefined || info.export !== undefined) {
      const { denyImports, denyExports } = this.#remote.options;
      leaf.permissions = LeafPermissions.fromHub(
        subjectLists(info.import),
        subjectLists(info.export),
        denyImports,
        denyExports,
      );
    }
    if (info.connect_info === true && !leaf.ready) leaf.register(leaf.account!);
    return true;
  }

  #firstInfo(leaf: LeafConnection, info: HubInfo): boolean {
    // A client or route port's INFO has no client_id or leafnode_urls (nats-server's check).
    if (typeof info.client_id !== 'number' || !Array.isArray(info.leafnode_urls)) {
      this.#host.logError(`${leaf.label} - attempted to connect to wrong port`);
      leaf.close('Wrong Port');
      return false;
    }
    leaf.nameRemote(
      typeof info.server_name === 'string' ? info.server_name : '',
      typeof info.server_id === 'string' ? info.server_id : '',
    );
    leaf.headers = info.headers === true;
    const nonce = typeof info.nonce === 'string' ? info.nonce : '';
    void this.#sendConnect(leaf, nonce, info.info_on_connect === true);
    return true;
  }

  async #sendConnect(leaf: LeafConnection, nonce: string, waitForInfo: boolean): Promise<void> {
    const remote = this.#remote.options;
    const connect: Record<string, unknown> = {
      version: this.#host.version,
      tls_required: this.#tls,
      server_id: this.#host.serverId,
      ...(this.#host.jetstreamDomain ? { domain: this.#host.jetstreamDomain } : {}),
      name: this.#host.serverName,
      headers: true,
      ...(this.#host.jetstream ? { jetstream: true } : {}),
      // The hub keeps these from us (it adds them to its publish deny for this connection).
      ...(remote.denyImports.length > 0 ? { deny_pub: remote.denyImports } : {}),
    };
    if (remote.credentials) {
      if (this.#host.debug) {
        this.#host.logDebug(
          `${leaf.label} - Authenticating with credentials file "${remote.credentials}"`,
        );
      }
      try {
        Object.assign(connect, await signWithCredentials(remote.credentials, nonce));
      } catch (error) {
        this.#host.logError(`${leaf.label} - ${(error as Error).message}`);
        leaf.close('Authentication Failure');
        return;
      }
    } else if (this.#remote.login) {
      connect.user = this.#remote.login.user;
      connect.pass = this.#remote.login.pass;
    }
    if (leaf.closed) return;
    const json = JSON.stringify(connect);
    leaf.send(`CONNECT ${redacted(connect)}`, `CONNECT ${json}\r\n`);
    if (this.#host.debug) this.#host.logDebug(`${leaf.label} - Remote leafnode connect msg sent`);
    if (!waitForInfo) leaf.register(leaf.account!);
  }
}

/** The CONNECT as a trace shows it: no password or signature. */
function redacted(connect: Record<string, unknown>): string {
  const shown = { ...connect };
  if ('pass' in shown) shown.pass = '[REDACTED]';
  if ('sig' in shown) shown.sig = '[REDACTED]';
  return JSON.stringify(shown);
}

/** The strings of an INFO field that should be a list of them. */
function strings(value: unknown): string[] {
  return Array.isArray(value)
    ? value.filter((item): item is string => typeof item === 'string')
    : [];
}

/** The user and password a URL carries (`user:password@`), if any. */
function loginOf(url: URL | undefined): { user: string; pass: string } | undefined {
  if (!url?.username) return undefined;
  return { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) };
}

function isWebSocket(url: URL): boolean {
  return url.protocol === 'ws:' || url.protocol === 'wss:';
}

/** The URL's host without an IPv6 address's brackets. */
function bareHost(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '');
}

/** Whether two URLs name the same host and port (configured ones may carry a login, discovered ones never do). */
function sameEndpoint(a: URL, b: URL): boolean {
  const port = (url: URL) => Number(url.port || defaultPort(url));
  return a.hostname === b.hostname && port(a) === port(b);
}

/** nats-server's leaf node port, or the WebSocket scheme's. */
function defaultPort(url: URL): number {
  if (url.protocol === 'ws:') return 80;
  if (url.protocol === 'wss:') return 443;
  return 7422;
}
