import type { Transport } from '@slipstream/transport';
import { InvalidArgumentError } from './errors.js';

/** One server the client may connect to, with its reconnect bookkeeping. */
export interface ServerEntry {
  readonly url: URL;
  /** `host:port`, as status events and getServer() report it. */
  readonly hostport: string;
  /** Learned from INFO connect_urls rather than given by the user. */
  readonly gossiped: boolean;
  /** Failed attempts since this server last accepted us. */
  failures: number;
  /** When the last attempt on this server started (ms since epoch), 0 if never. */
  lastAttempt: number;
  didConnect: boolean;
  /** The last connection to this server used TLS. */
  encrypted: boolean;
}

/**
 * The servers of a connection, in the order they will be tried. Servers given by the user are
 * shuffled unless `noRandomize`; servers announced by the cluster are added as they appear.
 */
export class ServerPool {
  #entries: ServerEntry[] = [];
  #transport: Transport;
  #next = 0;

  constructor(servers: string[], transport: Transport, randomize: boolean) {
    this.#transport = transport;
    for (const server of servers) this.#add(server, false);
    if (this.#entries.length === 0) throw new InvalidArgumentError('no servers to connect to');
    if (randomize) shuffle(this.#entries);
  }

  get size(): number {
    return this.#entries.length;
  }

  /** The next server to try, round-robin, or undefined once every server ran out of attempts. */
  next(maxAttempts: number): ServerEntry | undefined {
    for (let i = 0; i < this.#entries.length; i++) {
      const entry = this.#entries[this.#next % this.#entries.length]!;
      this.#next = (this.#next + 1) % this.#entries.length;
      if (maxAttempts < 0 || entry.failures < maxAttempts) return entry;
    }
    return undefined;
  }

  /** Drops servers that ran out of attempts so `next` stops offering them. */
  prune(maxAttempts: number): void {
    if (maxAttempts < 0) return;
    this.#entries = this.#entries.filter((entry) => entry.failures < maxAttempts);
    this.#next = 0;
  }

  /** Merges a cluster's connect_urls; returns what changed (gossiped servers only). */
  update(urls: string[], current: ServerEntry | undefined): { added: string[]; deleted: string[] } {
    const known = new Set(this.#entries.map((e) => e.hostport));
    const announced = new Set<string>();
    const added: string[] = [];
    for (const url of urls) {
      const entry = this.#parse(url, true);
      announced.add(entry.hostport);
      if (!known.has(entry.hostport)) {
        this.#entries.push(entry);
        added.push(entry.hostport);
      }
    }
    const deleted: string[] = [];
    this.#entries = this.#entries.filter((e) => {
      const keep = !e.gossiped || e === current || announced.has(e.hostport);
      if (!keep) deleted.push(e.hostport);
      return keep;
    });
    return { added, deleted };
  }

  #add(server: string, gossiped: boolean): void {
    const entry = this.#parse(server, gossiped);
    if (!this.#entries.some((e) => e.hostport === entry.hostport)) this.#entries.push(entry);
  }

  #parse(server: string, gossiped: boolean): ServerEntry {
    const url = parseServerUrl(server, this.#transport);
    const port = url.port || String(this.#transport.defaultPort(url.protocol.slice(0, -1)));
    return {
      url,
      hostport: `${url.hostname}:${port}`,
      gossiped,
      failures: 0,
      lastAttempt: 0,
      didConnect: false,
      encrypted: false,
    };
  }
}

/** `host`, `host:port`, or a URL with a scheme; the port defaults per the transport's scheme. */
export function parseServerUrl(server: string, transport: Transport): URL {
  const text = server.trim();
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(text)
    ? text
    : `${transport.schemes[0]}://${text}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    throw new InvalidArgumentError(`not a server URL: '${server}'`);
  }
  const scheme = url.protocol.slice(0, -1);
  if (!transport.schemes.includes(scheme)) {
    throw new InvalidArgumentError(
      `the ${transport.name} transport cannot connect to '${server}' (it speaks ${transport.schemes.join(', ')})`,
    );
  }
  if (!url.port) url.port = String(transport.defaultPort(scheme));
  return url;
}

function shuffle<T>(items: T[]): void {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
}
