import { freePort, makeTestCertificates, startNatsServer } from '@slipstream/test-servers';
import { afterEach, describe, expect, it } from 'vitest';
import { client, eventually, firstDelivery, ourServer } from './leafnode-support.js';
import type { OfficialConnection } from './official-connection.js';

// Our leaf of a nats-server 2.9.10 hub through the hub's WebSocket port (ws:// and wss:// remotes).

const running: { stop(): Promise<void> }[] = [];
const connections: OfficialConnection[] = [];
afterEach(async () => {
  await Promise.all(connections.splice(0).map((nc) => nc.close().catch(() => undefined)));
  for (const server of running.splice(0).reverse()) await server.stop();
});

async function crosses(hubUrl: string, leafUrl: string): Promise<void> {
  const onHub = await client(hubUrl);
  const onLeaf = await client(leafUrl);
  connections.push(onHub, onLeaf);
  const up = onHub.subscribe('up');
  expect((await firstDelivery(onLeaf, 'up', up, 'over ws')).string()).toBe('over ws');
  const down = onLeaf.subscribe('down');
  expect((await firstDelivery(onHub, 'down', down, 'back')).string()).toBe('back');
}

describe('our leaf of a nats-server hub over WebSocket', () => {
  it('a ws:// remote', async () => {
    const wsPort = await freePort();
    const hub = await startNatsServer({
      config: `websocket { host: 127.0.0.1, port: ${wsPort}, no_tls: true }\nleafnodes { port: -1 }`,
    });
    running.push(hub);
    const wsLeaf = await ourServer({
      reconnectInterval: 100,
      remotes: [{ urls: [`ws://127.0.0.1:${wsPort}`] }],
    });
    running.push(wsLeaf);
    await crosses(hub.url, wsLeaf.url);
  });

  it('a wss:// remote checking the hub certificate, and one refusing it', async () => {
    const certs = await makeTestCertificates();
    running.push({ stop: () => certs.remove() });
    const wsPort = await freePort();
    const hub = await startNatsServer({
      config: `websocket { host: 127.0.0.1, port: ${wsPort}, tls { cert_file: "${certs.certFile}", key_file: "${certs.keyFile}" } }\nleafnodes { port: -1 }`,
    });
    running.push(hub);
    const leaf = await ourServer({
      reconnectInterval: 100,
      remotes: [{ urls: [`wss://127.0.0.1:${wsPort}`], tls: { ca: certs.ca } }],
    });
    running.push(leaf);
    await crosses(hub.url, leaf.url);
    const refusing = await ourServer({
      reconnectInterval: 100,
      remotes: [{ urls: [`wss://127.0.0.1:${wsPort}`] }],
    });
    running.push(refusing);
    await eventually(() =>
      expect(refusing.output()).toMatch(/Error trying to connect as leafnode .*certificate/),
    );
  });
});

describe('our hub taking leaf nodes on its WebSocket port', () => {
  it('serves a nats-server leaf whose ws:// remote asks for /leafnode, and ours', async () => {
    const hub = await ourServer({}, { websocket: { host: '127.0.0.1', port: 0, noTls: true } });
    running.push(hub);
    const wsPort = hub.server().websocketPort!;
    const natsLeaf = await startNatsServer({
      config: `leafnodes { reconnect: 1, remotes = [ { url: "ws://127.0.0.1:${wsPort}" } ] }`,
    });
    running.push(natsLeaf);
    await crosses(hub.url, natsLeaf.url);
    const ourLeaf = await ourServer({
      reconnectInterval: 100,
      remotes: [{ urls: [`ws://127.0.0.1:${wsPort}`] }],
    });
    running.push(ourLeaf);
    await crosses(hub.url, ourLeaf.url);
  });

  it('closes a /leafnode upgrade when no leaf nodes are configured, and logs it', async () => {
    const { startServer } = await import('../src/index.js');
    const { recordingLogger } = await import('./leafnode-support.js');
    const logger = recordingLogger();
    const hub = await startServer({
      host: '127.0.0.1',
      port: 0,
      logger,
      websocket: { host: '127.0.0.1', port: 0, noTls: true },
    });
    running.push({ stop: () => hub.close() });
    const leaf = await ourServer({
      reconnectInterval: 100,
      remotes: [{ urls: [`ws://127.0.0.1:${hub.websocketPort}`] }],
    });
    running.push(leaf);
    await eventually(() =>
      expect(logger.lines.join('\n')).toContain('leafnode over websocket refused'),
    );
  });
});
