import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  connect,
  createInbox,
  headers,
  InvalidArgumentError,
  ProtocolViolationError,
  TimeoutError,
} from '../src/node.js';
import { connectedSuite, type SuiteServer, serverKinds, waitFor } from './servers.js';

interface ConnzEntry {
  name?: string;
  lang?: string;
  version?: string;
}

describe.each(serverKinds)('connect options against $name', (kind) => {
  const suite = connectedSuite(kind);

  it('announces name, lang and version in CONNECT (as /connz shows)', async () => {
    const named = await connect({ servers: suite.server.url, name: 'options-test' });
    await named.flush();
    const connz = (await (await fetch(`${suite.server.monitorUrl}/connz`)).json()) as {
      connections: ConnzEntry[];
    };
    const mine = connz.connections.find((c) => c.name === 'options-test');
    expect(mine).toMatchObject({ lang: 'javascript', version: '0.0.0' });
    await named.close();
  });

  it('works in verbose and pedantic mode (the +OK acknowledgements are absorbed)', async () => {
    const chatty = await connect({ servers: suite.server.url, verbose: true, pedantic: true });
    const subject = createInbox();
    chatty.subscribe(subject, { callback: (_e, m) => void m.respond(`re:${m.string()}`) });
    const reply = await chatty.request(subject, 'q', { timeout: 5000 });
    expect(reply.string()).toBe('re:q');
    await chatty.flush();
    await chatty.close();
  });

  it('without headers: refuses header publishes, and no responders is off (requests time out)', async () => {
    await expect(
      connect({ servers: suite.server.url, headers: false, noResponders: true }),
    ).rejects.toBeInstanceOf(InvalidArgumentError);
    const plain = await connect({ servers: suite.server.url, headers: false });
    const h = headers();
    h.set('k', 'v');
    expect(() => plain.publish('x', 'y', { headers: h })).toThrow(InvalidArgumentError);
    const nobody = await plain.request(createInbox(), '', { timeout: 200 }).catch((e) => e);
    expect(nobody).toBeInstanceOf(TimeoutError);
    // The server strips headers from what it sends to a client that did not ask for them.
    const subject = createInbox();
    const sub = plain.subscribe(subject, { max: 1 });
    await plain.flush();
    suite.nc.publish(subject, 'body', { headers: h });
    const got: unknown[] = [];
    for await (const m of sub) got.push([m.string(), m.headers]);
    expect(got).toEqual([['body', undefined]]);
    await plain.close();
  });

  it('with noResponders off, a request nobody listens to times out', async () => {
    const patient = await connect({ servers: suite.server.url, noResponders: false });
    const error = await patient.request(createInbox(), '', { timeout: 200 }).catch((e) => e);
    expect(error).toBeInstanceOf(TimeoutError);
    await patient.close();
  });

  it('builds reply subjects from inboxPrefix, muxed and not', async () => {
    const subject = createInbox();
    suite.nc.subscribe(subject, { callback: (_e, m) => void m.respond(m.reply) });
    await suite.nc.flush();
    const custom = await connect({ servers: suite.server.url, inboxPrefix: '_R.mine' });
    const muxed = await custom.request(subject, '', { timeout: 5000 });
    expect(muxed.string()).toMatch(/^_R\.mine\./);
    const own = await custom.request(subject, '', { timeout: 5000, noMux: true });
    expect(own.string()).toMatch(/^_R\.mine\./);
    await custom.close();
    await expect(connect({ servers: suite.server.url, inboxPrefix: 'bad prefix' })).rejects.toThrow(
      InvalidArgumentError,
    );
  });

  it('logs protocol operations with debug, without the credentials', async () => {
    const lines: string[] = [];
    const spy = vi
      .spyOn(console, 'debug')
      .mockImplementation((...args: unknown[]) => void lines.push(args.join(' ')));
    try {
      const loud = await connect({ servers: suite.server.url, debug: true, name: 'loud' });
      await loud.flush();
      await loud.close();
    } finally {
      spy.mockRestore();
    }
    expect(lines.some((l) => l.startsWith('[nats] > CONNECT') && l.includes('"loud"'))).toBe(true);
    expect(lines.some((l) => l.startsWith('[nats] < INFO'))).toBe(true);
    expect(lines.some((l) => l.includes('[nats] status close'))).toBe(true);
  });

  it('pings every pingInterval; answered pings never make the connection stale', async () => {
    const pinging = await connect({ servers: suite.server.url, pingInterval: 100, maxPingOut: 5 });
    const seen: string[] = [];
    void (async () => {
      for await (const s of pinging.status()) seen.push(s.type);
    })();
    await waitFor(() => seen.filter((t) => t === 'ping').length >= 3, 'three pings');
    expect(seen.every((t) => t === 'ping')).toBe(true);
    expect(pinging.isClosed()).toBe(false);
    await pinging.close();
  });

  it('gives up a handshake that does not finish within timeout', async () => {
    const frozen = await kind.startInOwnProcess();
    frozen.freeze();
    try {
      // The kernel accepts the socket, but the frozen server never sends INFO.
      const error = await connect({ servers: frozen.url, timeout: 300 }).catch((e) => e);
      expect(error).toBeInstanceOf(TimeoutError);
    } finally {
      frozen.thaw();
      await frozen.stop();
    }
  });
});

describe.each(serverKinds)('the servers pool against $name', (kind) => {
  let a: SuiteServer;
  let b: SuiteServer;
  beforeAll(async () => {
    a = await kind.start();
    b = await kind.start();
  });
  afterAll(async () => {
    await a?.stop();
    await b?.stop();
  });
  const hostport = (s: SuiteServer) => s.url.replace('nats://', '');

  const connectedTo = async (servers: string[], noRandomize: boolean) => {
    const nc = await connect({ servers, noRandomize });
    const server = nc.getServer();
    await nc.close();
    return server;
  };

  it('tries servers in the given order with noRandomize, skipping one that is down', async () => {
    for (let i = 0; i < 5; i++) {
      expect(await connectedTo([a.url, b.url], true)).toBe(hostport(a));
      expect(await connectedTo([b.url, a.url], true)).toBe(hostport(b));
    }
    expect(await connectedTo(['127.0.0.1:1', a.url], true)).toBe(hostport(a));
  });

  it('shuffles the servers by default', async () => {
    const seen = new Set<string>();
    // Both servers show up within 30 connects unless the order is fixed (chance 2^-29).
    for (let i = 0; i < 30 && seen.size < 2; i++)
      seen.add(await connectedTo([a.url, b.url], false));
    expect([...seen].sort()).toEqual([hostport(a), hostport(b)].sort());
  });
});

describe('a server whose INFO breaks the protocol', () => {
  it('fails the connect with a ProtocolViolationError naming the bad field', async () => {
    const { createServer } = await import('node:net');
    // No real server sends this, so a socket plays one: max_payload must be an integer.
    const fake = createServer((socket) => socket.write('INFO {"max_payload":"1MB"} \r\n'));
    await new Promise<void>((resolve) => fake.listen(0, '127.0.0.1', resolve));
    const { port } = fake.address() as { port: number };
    try {
      const error = await connect({ servers: `127.0.0.1:${port}`, timeout: 5000 }).catch((e) => e);
      expect(error).toBeInstanceOf(ProtocolViolationError);
      expect(error.message).toContain('max_payload');
    } finally {
      await new Promise((resolve) => fake.close(resolve));
    }
  });
});
