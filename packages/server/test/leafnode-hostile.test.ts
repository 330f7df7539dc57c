import { createServer, type Server, type Socket } from 'node:net';
import { freePort } from '@slipstream/test-servers';
import { afterEach, describe, expect, it } from 'vitest';
import { infoApiLevel } from '../src/api-level.js';
import {
  eventually,
  type LeafTestServer,
  natsServerHub,
  natsServerLeaf,
  natsServerWith,
  ourHub,
  ourLeaf,
  ourServer,
} from './leafnode-support.js';
import { RawClient } from './raw-client.js';

const running: LeafTestServer[] = [];
const sockets: RawClient[] = [];
afterEach(async () => {
  for (const raw of sockets.splice(0)) raw.close();
  for (const server of running.splice(0).reverse()) await server.stop();
});

async function started<T extends LeafTestServer>(server: Promise<T>): Promise<T> {
  const s = await server;
  running.push(s);
  return s;
}

/** A raw connection to a leaf node port that has logged in (no authorization configured). */
async function loggedIn(port: number): Promise<RawClient> {
  const raw = await RawClient.connectAndGreet(port);
  sockets.push(raw);
  await raw.send('CONNECT {"name":"raw","server_id":"NRAW","headers":true}\r\nPING\r\n');
  await raw.waitFor('PONG\r\n');
  return raw;
}

const hubs = [
  { name: 'nats-server', start: () => natsServerHub() },
  { name: 'ours', start: () => ourHub() },
];

describe.each(hubs)('a leaf node port of $name', (hub) => {
  it('answers an unknown operation with -ERR and closes', async () => {
    const server = await started(hub.start());
    const raw = await loggedIn(server.leafPort!);
    await raw.send('FOO bar\r\n');
    await raw.closed;
    expect(raw.text).toContain("-ERR 'Unknown Protocol Operation'");
    await eventually(() =>
      expect(server.output()).toMatch(/\[ERR\].*(parser ERROR|Parser ERROR)/i),
    );
  });

  it('closes without -ERR on malformed LMSG arguments', async () => {
    const server = await started(hub.start());
    const raw = await loggedIn(server.leafPort!);
    await raw.send('LMSG foo ? a b 5\r\nhello\r\n');
    await raw.closed;
    expect(raw.text).not.toContain('-ERR');
    await eventually(() => expect(server.output()).toContain('Bad or Missing Reply Indicator'));
  });

  it('refuses interest before CONNECT', async () => {
    const server = await started(hub.start());
    const raw = await RawClient.connectAndGreet(server.leafPort!);
    sockets.push(raw);
    await raw.send('LS+ foo\r\n');
    await raw.closed;
    expect(raw.text).toContain("-ERR 'Authorization Violation'");
  });

  it('greets with a leaf node INFO: nonce, client_id, leafnode_urls, info_on_connect', async () => {
    const server = await started(hub.start());
    const raw = await RawClient.connectAndGreet(server.leafPort!);
    sockets.push(raw);
    const info = raw.info();
    expect(info).toMatchObject({ auth_required: true, headers: true, info_on_connect: true });
    expect(typeof info.nonce).toBe('string');
    expect(typeof info.client_id).toBe('number');
    expect(info.leafnode_urls).toEqual([`127.0.0.1:${server.leafPort}`]);
    // As the client port's INFO: from 2.12 on the API level too (v2.12.0 leafnode.go:769).
    expect(info.api_lvl).toBe(infoApiLevel(String(info.version)).api_lvl);
  });
});

describe('wrong credentials', () => {
  it('our hub refuses a nats-server leaf with a wrong password, and logs it', async () => {
    const hub = await started(ourHub({ user: 'leaf', password: 'right' }));
    const leafPort = hub.leafPort!;
    const leaf = await started(
      natsServerWith(`remotes = [ { url: "nats-leaf://leaf:wrong@127.0.0.1:${leafPort}" } ]`),
    );
    await eventually(() => expect(hub.output()).toContain('authentication error'));
    await eventually(() => expect(leaf.output()).toContain('Authorization Violation'));
  });

  it('a nats-server hub refuses our leaf with a wrong password, and our leaf logs it', async () => {
    const hub = await started(natsServerHub('authorization { user: leaf, password: right }'));
    const leaf = await started(
      ourServer({ remotes: [{ urls: [`nats-leaf://leaf:wrong@127.0.0.1:${hub.leafPort}`] }] }),
    );
    await eventually(() =>
      expect(leaf.output()).toContain("Leafnode Error 'Authorization Violation'"),
    );
    expect(hub.output()).toMatch(/authentication error|Authorization Violation/);
  });

  it('our hub takes the right password', async () => {
    const hub = await started(ourHub({ user: 'leaf', password: 'right' }));
    await started(
      natsServerWith(`remotes = [ { url: "nats-leaf://leaf:right@127.0.0.1:${hub.leafPort}" } ]`),
    );
    await eventually(() => expect(hub.output()).toMatch(/registered for account: \$G/));
  });
});

/** A fake hub: sends `info` on accept and records what the leaf sends. */
async function fakeHub(info: Record<string, unknown>) {
  const port = await freePort();
  const received: string[] = [];
  const connections: Socket[] = [];
  const server: Server = createServer((socket) => {
    connections.push(socket);
    socket.setEncoding('latin1');
    let text = '';
    socket.on('data', (chunk: string) => {
      text += chunk;
      received.push(chunk);
      if (/^CONNECT /m.test(text) && !text.includes('#answered')) {
        text += '#answered';
        socket.write(`INFO ${JSON.stringify({ ...info, connect_info: true })} \r\n`);
      }
    });
    socket.on('error', () => {});
    socket.write(`INFO ${JSON.stringify(info)} \r\n`);
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    port,
    text: () => received.join(''),
    stop: async () => {
      for (const socket of connections) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const hubInfo = {
  server_id: 'NFAKEHUB',
  server_name: 'fake-hub',
  version: '2.9.10',
  proto: 1,
  headers: true,
  auth_required: true,
  max_payload: 1048576,
  client_id: 7,
  nonce: 'abcdefghijklmno',
  leafnode_urls: ['127.0.0.1:1'],
  info_on_connect: true,
};

describe.each([
  { name: 'nats-server', leaf: (port: number) => natsServerLeaf(port) },
  { name: 'ours', leaf: (port: number) => ourLeaf(port) },
])('$name as a leaf', (kind) => {
  it('ignores a field it does not know in the hub INFO', async () => {
    const hub = await fakeHub({ ...hubInfo, some_future_field: { nested: [1, 2] } });
    try {
      await started(kind.leaf(hub.port));
      await eventually(() => expect(hub.text()).toMatch(/^CONNECT \{.*"name":/m));
      await eventually(() => expect(hub.text()).toMatch(/^LS\+ \$LDS\.\S+\r$/m));
    } finally {
      await hub.stop();
    }
  });

  it('logs a malformed entry of the hub INFO leafnode_urls and stays connected', async () => {
    const hub = await fakeHub({ ...hubInfo, leafnode_urls: ['127.0.0.1:1', '[::1'] });
    try {
      const leaf = await started(kind.leaf(hub.port));
      await eventually(() => expect(hub.text()).toMatch(/^LS\+ \$LDS\.\S+\r$/m));
      await eventually(() => expect(leaf.output()).toContain('Error parsing url "[::1"'));
    } finally {
      await hub.stop();
    }
  });

  it('refuses a port whose INFO is not a leaf node port INFO', async () => {
    const { client_id: _, leafnode_urls: __, ...clientInfo } = hubInfo;
    const hub = await fakeHub(clientInfo);
    try {
      const leaf = await started(kind.leaf(hub.port));
      await eventually(() => expect(leaf.output()).toContain('attempted to connect to wrong port'));
      expect(hub.text()).not.toMatch(/^CONNECT /m);
    } finally {
      await hub.stop();
    }
  });
});

describe('loops', () => {
  it('two of our servers that are each other leaf find the loop and say so', async () => {
    const portA = await freePort();
    const portB = await freePort();
    const a = await started(
      ourServer({
        host: '127.0.0.1',
        port: portA,
        reconnectInterval: 100,
        remotes: [{ urls: [`nats-leaf://127.0.0.1:${portB}`] }],
      }),
    );
    const b = await started(
      ourServer({
        host: '127.0.0.1',
        port: portB,
        reconnectInterval: 100,
        remotes: [{ urls: [`nats-leaf://127.0.0.1:${portA}`] }],
      }),
    );
    await eventually(() =>
      expect(`${a.output()}\n${b.output()}`).toContain('Loop detected for leafnode account="$G"'),
    );
  });
});
