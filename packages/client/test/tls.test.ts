import { readFileSync } from 'node:fs';
import { type NatsServer, silentLogger, startServer } from '@slipstream/server';
import {
  makeTestCertificates,
  type RunningNatsServer,
  startNatsServer,
  type TestCertificates,
} from '@slipstream/test-servers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ConnectionError,
  connect,
  createInbox,
  type NatsConnection,
  TimeoutError,
} from '../src/node.js';
import { waitFor } from './servers.js';

/** The connection's own message comes back to it; then it is closed. */
async function expectSelfDelivery(nc: NatsConnection): Promise<void> {
  const subject = createInbox();
  const sub = nc.subscribe(subject, { max: 1 });
  nc.publish(subject, 'secret');
  const got: string[] = [];
  for await (const m of sub) got.push(m.string());
  expect(got).toEqual(['secret']);
  await nc.close();
}

describe('client over TLS against nats-server 2.9.10', () => {
  let certs: TestCertificates;
  let server: RunningNatsServer;
  let ca: string;
  beforeAll(async () => {
    certs = await makeTestCertificates();
    ca = certs.ca;
    server = await startNatsServer({
      config: `tls { cert_file: "${certs.certFile}", key_file: "${certs.keyFile}" }`,
    });
  });
  afterAll(async () => {
    await server?.stop();
    await certs?.remove();
  });

  it('upgrades when the server requires TLS, with tls:// URLs too', async () => {
    for (const servers of [server.url, server.url.replace('nats://', 'tls://')]) {
      await expectSelfDelivery(await connect({ servers, tls: { ca } }));
    }
  });

  it('reconnects with the TLS jitter when TLS came from the tls option (nats:// URL)', async () => {
    // A plain jitter of 10 minutes would stall the reconnect: only the TLS one (0) may apply.
    const nc = await connect({
      servers: server.url,
      tls: { ca },
      reconnectTimeWait: 20,
      reconnectJitter: 600_000,
      reconnectJitterTLS: 0,
    });
    const statuses: string[] = [];
    void (async () => {
      for await (const s of nc.status()) statuses.push(s.type);
    })();
    server = await server.restart();
    await waitFor(() => statuses.includes('reconnect'), 'reconnect');
    await nc.flush();
    await nc.close();
  });

  it('fails to connect when the certificate is not trusted', async () => {
    const error = await connect({ servers: server.url, timeout: 5000 }).catch((e) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error.cause as { code?: string }).code).toBe('TLS_FAILED');
  });
});

// handshake_first is nats-server 2.10.4+: 2.9.10 refuses the key, so this runs against ours.
describe('client with tls.handshakeFirst against slipstream-server', () => {
  let certs: TestCertificates;
  let server: NatsServer;
  beforeAll(async () => {
    certs = await makeTestCertificates();
    server = await startServer({
      host: '127.0.0.1',
      port: 0,
      logger: silentLogger,
      tls: {
        cert: readFileSync(certs.certFile, 'utf8'),
        key: readFileSync(certs.keyFile, 'utf8'),
        handshakeFirst: true,
      },
    });
  });
  afterAll(async () => {
    await server?.close();
    await certs?.remove();
  });

  it('starts TLS before the INFO and talks over it', async () => {
    const nc = await connect({ servers: server.url, tls: { ca: certs.ca, handshakeFirst: true } });
    expect(nc.info?.tls_required).toBe(true);
    await expectSelfDelivery(nc);
  });

  it('cannot connect without it: the server says nothing until the handshake', async () => {
    const error = await connect({
      servers: server.url,
      tls: { ca: certs.ca },
      timeout: 1000,
    }).catch((e) => e);
    expect(error).toBeInstanceOf(TimeoutError);
  });
});
