import { readFileSync } from 'node:fs';
import type { TLSSocket } from 'node:tls';
import { makeTestCertificates, type TestCertificates } from '@slipstream/test-servers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger, startServer } from '../src/index.js';
import { RawClient } from './raw-client.js';
import { bothServers, closedAfterEach, closeReasons } from './targets.js';
import { connectSecure as connectTls } from './tls-client.js';

let certs: TestCertificates;
beforeAll(async () => {
  certs = await makeTestCertificates();
});
afterAll(() => certs?.remove());

/** The TLS client as a NATS client starts it, trusting the test CA. */
const connectSecure = (port: number, clientCertificate = false) =>
  connectTls(
    port,
    certs,
    clientCertificate
      ? { certFile: certs.clientCertFile, keyFile: certs.clientKeyFile }
      : undefined,
  );

describe.each(bothServers)('TLS against $name', (target) => {
  const resources = closedAfterEach(target);
  const { track, connect } = resources;
  const start = (verify = false, timeout?: number) =>
    resources.start({
      tls: {
        certFile: certs.certFile,
        keyFile: certs.keyFile,
        caFile: certs.caFile,
        verify,
        timeout,
      },
      monitoring: true,
    });

  it('announces tls_required in a plain INFO and serves the protocol over TLS', async () => {
    const server = await start();
    const { info, client } = await connectSecure(server.port);
    track(client);
    expect(info).toMatchObject({ tls_required: true });
    expect(info.tls_verify).toBeUndefined();
    await client.send('CONNECT {"verbose":false}\r\nSUB secret 1\r\nPUB secret 2\r\nhi\r\n');
    await client.sync();
    expect(client.text).toBe('MSG secret 1 2\r\nhi\r\nPONG\r\n');
    const connz = (await (await fetch(`${server.httpUrl}/connz`)).json()) as {
      connections: Record<string, unknown>[];
    };
    expect(connz.connections[0]).toMatchObject({ tls_version: '1.3' });
    expect(connz.connections[0]!.tls_cipher_suite).toMatch(/^TLS_/);
    const varz = (await (await fetch(`${server.httpUrl}/varz`)).json()) as Record<string, unknown>;
    expect(varz.tls_required).toBe(true);
  });

  it('closes a client that talks plain text instead of starting TLS', async () => {
    const server = await start();
    const client = await connect(server);
    await client.send('CONNECT {"verbose":false}\r\nPING\r\n');
    expect(await client.waitClosed()).not.toContain('PONG');
  });

  it('closes a client that never starts the handshake after the TLS timeout', async () => {
    const server = await start(false, 300);
    const client = await connect(server);
    await client.waitClosed();
    // (nats-server also lists the test harness's readiness probe, which never sent a byte.)
    expect(await closeReasons(server)).toContain('TLS Handshake Failure');
  });

  it('with verify, refuses a client without a certificate and serves one with', async () => {
    const server = await start(true);
    const anonymous = await connectSecure(server.port);
    track(anonymous.client);
    expect(anonymous.info).toMatchObject({ tls_required: true, tls_verify: true });
    void anonymous.client.send('CONNECT {"verbose":false}\r\nPING\r\n');
    expect(await anonymous.client.waitClosed()).not.toContain('PONG');

    const known = await connectSecure(server.port, true);
    track(known.client);
    await known.client.send('CONNECT {"verbose":false}\r\n');
    expect(await known.client.sync()).toBe('PONG\r\n');
  });
});

describe.each(bothServers)('allow_non_tls against $name', (target) => {
  const { start, connect, track } = closedAfterEach(target);
  const serve = (options: { verify?: boolean; users?: boolean } = {}) =>
    start({
      tls: {
        certFile: certs.certFile,
        keyFile: certs.keyFile,
        caFile: certs.caFile,
        verify: options.verify ?? false,
      },
      allowNonTls: true,
      authorization: options.users ? { users: [{ user: 'u', pass: 'p' }] } : undefined,
    });

  it('announces tls_available and serves TLS and plain clients on one port, to each other', async () => {
    const server = await serve();
    const plain = await connect(server);
    expect(plain.info()).toMatchObject({ tls_available: true });
    expect(plain.info()).not.toHaveProperty('tls_required');
    await plain.send('CONNECT {"verbose":false}\r\nSUB news 1\r\n');
    await plain.sync();
    const { client: secure } = await connectSecure(server.port);
    track(secure);
    expect((secure.socket as TLSSocket).encrypted).toBe(true);
    await secure.send('CONNECT {"verbose":false}\r\nPUB news 5\r\nhello\r\n');
    await secure.sync();
    await plain.waitFor('MSG news 1 5\r\nhello\r\n');
  });

  it('still requires the client certificate of a TLS client under verify, not of a plain one', async () => {
    const server = await serve({ verify: true });
    const { client: noCertificate } = await connectSecure(server.port);
    track(noCertificate);
    await noCertificate.send('CONNECT {"verbose":false}\r\nPING\r\n').catch(() => {});
    await noCertificate.waitClosed();
    expect(noCertificate.text).not.toContain('PONG');
    const { client: withCertificate } = await connectSecure(server.port, true);
    track(withCertificate);
    await withCertificate.send('CONNECT {"verbose":false}\r\n');
    await withCertificate.sync();
    const plain = await connect(server);
    await plain.send('CONNECT {"verbose":false}\r\n');
    await plain.sync();
  });

  it('holds a silent client to the auth timeout, whichever way it would have spoken', async () => {
    const server = await serve({ users: true });
    const silent = await connect(server);
    // nats-server waits the TLS timeout (2 s) for a first byte, then the auth timeout (3 s with TLS).
    expect(await silent.waitClosed(8_000)).toContain("-ERR 'Authentication Timeout'\r\n");
  });
});

describe('allow_non_tls shutdown', () => {
  it('does not wait for a client that has not sent its first byte yet', async () => {
    const server = await startServer({
      host: '127.0.0.1',
      port: 0,
      logger: silentLogger,
      tls: {
        cert: readFileSync(certs.certFile),
        key: readFileSync(certs.keyFile),
        timeout: 10_000,
      },
      allowNonTls: true,
    });
    const silent = await RawClient.connectAndGreet(server.port);
    const started = Date.now();
    await server.close();
    expect(Date.now() - started).toBeLessThan(1_000);
    await silent.waitClosed();
  });
});
