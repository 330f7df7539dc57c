import { readFileSync } from 'node:fs';
import { makeTestCertificates, type TestCertificates } from '@slipstream/test-servers';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  client,
  eventually,
  firstDelivery,
  type LeafTestServer,
  natsServerHub,
  natsServerWith,
  ourLeaf,
  ourServer,
} from './leafnode-support.js';
import type { OfficialConnection } from './official-connection.js';

let certs: TestCertificates;
beforeAll(async () => {
  certs = await makeTestCertificates();
});
afterAll(() => certs?.remove());

const running: LeafTestServer[] = [];
const connections: OfficialConnection[] = [];
afterEach(async () => {
  await Promise.all(connections.splice(0).map((nc) => nc.close().catch(() => undefined)));
  for (const server of running.splice(0).reverse()) await server.stop();
});

async function started<T extends LeafTestServer>(server: Promise<T>): Promise<T> {
  const s = await server;
  running.push(s);
  return s;
}

async function crosses(hub: LeafTestServer, leaf: LeafTestServer): Promise<void> {
  const onHub = await client(hub.url);
  const onLeaf = await client(leaf.url);
  connections.push(onHub, onLeaf);
  const up = onHub.subscribe('up');
  expect((await firstDelivery(onLeaf, 'up', up, 'over tls')).string()).toBe('over tls');
  const down = onLeaf.subscribe('down');
  expect((await firstDelivery(onHub, 'down', down, 'back')).string()).toBe('back');
}

const ourTls = () => ({
  cert: readFileSync(certs.certFile),
  key: readFileSync(certs.keyFile),
});

describe('leaf connections over TLS', () => {
  it('our leaf of a nats-server hub whose leaf node port requires TLS', async () => {
    const hub = await started(
      natsServerHub(`tls { cert_file: "${certs.certFile}", key_file: "${certs.keyFile}" }`),
    );
    const leaf = await started(ourLeaf(hub.leafPort!, { tls: { ca: certs.ca } }));
    await crosses(hub, leaf);
  });

  it('a nats-server leaf of our hub with TLS, verifying its client certificate', async () => {
    const hub = await started(
      ourServer({
        host: '127.0.0.1',
        port: 0,
        tls: { ...ourTls(), ca: certs.ca, verify: true },
      }),
    );
    const leaf = await started(
      natsServerWith(
        `remotes = [ { url: "tls://127.0.0.1:${hub.leafPort}", tls { ca_file: "${certs.caFile}", cert_file: "${certs.clientCertFile}", key_file: "${certs.clientKeyFile}" } } ]`,
      ),
    );
    await crosses(hub, leaf);
  });

  it('our leaf of our hub, TLS asked for by the hub INFO alone', async () => {
    const hub = await started(ourServer({ host: '127.0.0.1', port: 0, tls: ourTls() }));
    const leaf = await started(ourLeaf(hub.leafPort!, { tls: { ca: certs.ca } }));
    await crosses(hub, leaf);
    expect(leaf.output()).not.toContain('TLS handshake error');
  });

  it('refuses a hub certificate from another CA, and logs it', async () => {
    const hub = await started(ourServer({ host: '127.0.0.1', port: 0, tls: ourTls() }));
    const leaf = await started(
      ourLeaf(hub.leafPort!, { tls: { ca: readFileSync(certs.otherCaFile) } }),
    );
    await eventually(() => expect(leaf.output()).toContain('TLS handshake error'));
    expect(hub.output()).not.toMatch(/registered for account/);
  });

  it('our hub refuses a leaf without a client certificate when it verifies', async () => {
    const hub = await started(
      ourServer({ host: '127.0.0.1', port: 0, tls: { ...ourTls(), ca: certs.ca, verify: true } }),
    );
    const leaf = await started(ourLeaf(hub.leafPort!, { tls: { ca: certs.ca } }));
    await eventually(() => expect(hub.output()).toContain('TLS handshake error'));
    expect(leaf.output()).not.toMatch(/registered for account/);
  });
});
