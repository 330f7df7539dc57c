import type { Account } from '../accounts/account.js';
import type { UserPermissions } from '../auth/permissions.js';
import type { LeafConnection, LeafHandshake } from './leaf-connection.js';
import type { LeafFrame } from './leaf-parser.js';
import { LeafPermissions } from './leaf-permissions.js';

/** What the accepting side needs to greet and log in a leaf node. */
export interface AcceptHost {
  /** The INFO JSON for connection `cid`, with its nonce. */
  leafInfo(cid: number, nonce: string, extra?: Record<string, unknown>): string;
  /**
   * The account the CONNECT's credentials log in to, and the user's permissions; undefined when
   * they may not (a promise while a bcrypt hash or a resolver is asked).
   */
  login(
    credentials: LeafCredentials,
    nonce: string,
    ip: string,
  ): LeafLogin | undefined | Promise<LeafLogin | undefined>;
  /** The accepted leaves so far, to replace a stale one from the same server. */
  accepted(): Iterable<LeafConnection>;
  readonly authTimeout: number;
  logError(message: string): void;
  logWarn(message: string): void;
}

/** What a leaf's CONNECT may log in with: a user and password, or a user JWT and its signature. */
export interface LeafCredentials {
  user?: string;
  pass?: string;
  jwt?: string;
  sig?: string;
}

/** Whom a leaf logged in as: the account it is bound to, and the permissions of its user, if any. */
export interface LeafLogin {
  readonly account: Account;
  readonly permissions: UserPermissions | undefined;
}

/** The CONNECT a soliciting server sends (nats-server's leafConnectInfo); unknown fields are ignored. */
interface LeafConnect {
  user?: unknown;
  pass?: unknown;
  jwt?: unknown;
  sig?: unknown;
  server_id?: unknown;
  name?: unknown;
  is_hub?: unknown;
  headers?: unknown;
  domain?: unknown;
  cluster?: unknown;
  gateway?: unknown;
  lang?: unknown;
  deny_pub?: unknown;
}

/**
 * The hub's half of the handshake (nats-server's createLeafNode and processLeafNodeConnect for an
 * accepted connection): INFO with a nonce at once, then the CONNECT within the auth timeout; the
 * leaf logs in, is told its account (a second INFO with `connect_info`, which nats-server's leaf
 * waits for) and is registered, after which both sides send their interest.
 */
export class AcceptHandshake implements LeafHandshake {
  readonly #host: AcceptHost;
  readonly #nonce: string;

  /** True when the INFO went out already, in the clear before a TLS handshake. */
  readonly #infoSent: boolean;

  constructor(host: AcceptHost, nonce: string, infoSent = false) {
    this.#host = host;
    this.#nonce = nonce;
    this.#infoSent = infoSent;
  }

  start(leaf: LeafConnection): void {
    if (!this.#infoSent) {
      const info = this.#host.leafInfo(leaf.cid, this.#nonce);
      leaf.send(`INFO ${info}`, `INFO ${info} \r\n`);
    }
    leaf.handshakeDeadline(
      this.#host.authTimeout,
      'Authentication Timeout',
      'Authentication Timeout',
    );
  }

  frame(leaf: LeafConnection, frame: LeafFrame): boolean {
    if (frame.op === 'INFO') return true;
    if (frame.op !== 'CONNECT') return false;
    if (leaf.ready) {
      leaf.close('Protocol Violation', 'Unknown Protocol Operation');
      return true;
    }
    let connect: LeafConnect;
    try {
      connect = JSON.parse(frame.json) as LeafConnect;
      if (typeof connect !== 'object' || connect === null) throw new Error('not an object');
    } catch (error) {
      this.#host.logError(
        `${leaf.label} - Leafnode CONNECT parse error: ${(error as Error).message}`,
      );
      leaf.close('Protocol Violation', 'Protocol Violation');
      return true;
    }
    // A client (whose CONNECT names its language) knocked on the wrong port.
    if (typeof connect.lang === 'string' && connect.lang !== '') {
      leaf.close('Wrong Port', 'attempted to connect to leaf node port');
      return true;
    }
    if (typeof connect.gateway === 'string' && connect.gateway !== '') {
      const text = `Rejecting connection from gateway "${connect.gateway}" on the leafnode port`;
      this.#host.logError(`${leaf.label} - ${text}`);
      leaf.close('Wrong Gateway', text);
      return true;
    }
    const credentials = {
      user: text(connect.user),
      pass: text(connect.pass),
      jwt: text(connect.jwt),
      sig: text(connect.sig),
    };
    const login = this.#host.login(credentials, this.#nonce, leaf.ip);
    if (login instanceof Promise) {
      void login.then((found) => this.#loggedIn(leaf, connect, found));
    } else {
      this.#loggedIn(leaf, connect, login);
    }
    return true;
  }

  #loggedIn(leaf: LeafConnection, connect: LeafConnect, login: LeafLogin | undefined): void {
    if (leaf.closed) return;
    if (!login) {
      this.#host.logError(`${leaf.label} - authentication error`);
      leaf.close('Authentication Failure', 'Authorization Violation');
      return;
    }
    leaf.nameRemote(text(connect.name) ?? '', text(connect.server_id) ?? '');
    // A soliciting side that declares itself the hub makes us its spoke.
    leaf.isSpoke = connect.is_hub === true;
    leaf.headers = connect.headers === true;
    // What the leaf does not import (its deny_imports): we do not send it (nats-server's
    // mergeDenyPermissions of the CONNECT's deny_pub).
    const denyPub = Array.isArray(connect.deny_pub)
      ? connect.deny_pub.filter((s): s is string => typeof s === 'string')
      : [];
    const { account, permissions } = login;
    leaf.permissions = permissions
      ? LeafPermissions.ofLeafUser(permissions, denyPub)
      : LeafPermissions.open(denyPub);
    this.#replaceStale(leaf, account);
    const forLeaf = leaf.permissions.forLeaf;
    const info = this.#host.leafInfo(leaf.cid, this.#nonce, {
      ...(forLeaf?.import ? { import: forLeaf.import } : {}),
      ...(forLeaf?.export ? { export: forLeaf.export } : {}),
      connect_info: true,
      remote_account: account.name,
    });
    leaf.send(`INFO ${info}`, `INFO ${info} \r\n`);
    leaf.register(account);
  }

  /**
   * A server reconnecting before we noticed its old connection died: the new one replaces it
   * (nats-server's check for duplicates in addLeafNodeConnection).
   */
  #replaceStale(leaf: LeafConnection, account: Account): void {
    if (leaf.remoteName === '') return;
    for (const old of this.#host.accepted()) {
      if (old !== leaf && old.remoteName === leaf.remoteName && old.account === account) {
        old.close('Duplicate Remote LeafNode Connection', 'Duplicate Remote LeafNode Connection');
        this.#host.logWarn(`${leaf.label} - Replacing connection from same server`);
      }
    }
  }
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}
