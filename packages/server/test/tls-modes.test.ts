import { createHash, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { get as httpsGet } from 'node:https';
import { connect as connectTcp } from 'node:net';
import { type ConnectionOptions, connect as connectTls, type TLSSocket } from 'node:tls';
import { makeTestCertificates, type TestCertificates } from '@slipstream/test-servers';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  checkOptions,
  type NatsServer,
  type ServerOptions,
  silentLogger,
  startServer,
  type TlsOptions,
  type UserOptions,
} from '../src/index.js';
import { delay, RawClient } from './raw-client.js';
import { bothServers, closedAfterEach, closeReasons, type TargetOptions } from './targets.js';
import {
  type ClientCertificate,
  connectSecure,
  handshakeOver,
  tlsClientOptions,
} from './tls-client.js';

let certs: TestCertificates;
let alice: ClientCertificate;
let stranger: ClientCertificate;
beforeAll(async () => {
  certs = await makeTestCertificates();
  alice = { certFile: certs.aliceCertFile, keyFile: certs.aliceKeyFile };
  stranger = { certFile: certs.clientCertFile, keyFile: certs.clientKeyFile };
});
afterAll(() => certs?.remove());

/** The pin nats-server's pinned_certs lists for a certificate: SHA-256 of its DER SubjectPublicKeyInfo. */
function pinOf(certFile: string): string {
  const spki = new X509Certificate(readFileSync(certFile)).publicKey.export({
    type: 'spki',
    format: 'der',
  });
  return createHash('sha256').update(spki).digest('hex');
}

const ALICE_DN = 'CN=alice,OU=dev,O=Slipstream';

describe.each(bothServers)('TLS modes against $name', (target) => {
  const resources = closedAfterEach(target);
  const { track } = resources;
  const start = (tls: Partial<NonNullable<TargetOptions['tls']>> = {}, more: TargetOptions = {}) =>
    resources.start({
      tls: { certFile: certs.certFile, keyFile: certs.keyFile, caFile: certs.caFile, ...tls },
      monitoring: true,
      ...more,
    });
  const secure = async (
    port: number,
    certificate?: ClientCertificate,
    extra?: Parameters<typeof connectSecure>[3],
  ) => {
    const connection = await connectSecure(port, certs, certificate, extra);
    return track(connection.client);
  };

  it('pings a TLS client only after its CONNECT, not while it has sent none', async () => {
    const server = await start();
    const client = await secure(server.port);
    // The first PING after CONNECT comes within 2.4 s; before CONNECT nothing comes for a whole
    // ping interval (2 minutes).
    await delay(3_000);
    expect(client.text).toBe('');
    await client.send('CONNECT {"verbose":false}\r\n');
    await client.waitFor('PING\r\n', 4_000);
  });

  describe('verify_and_map', () => {
    const mapped = (users: UserOptions[]) =>
      start({ verifyAndMap: true }, { authorization: { users } });

    it('takes the client for the user its certificate subject names, with that user’s permissions', async () => {
      const server = await mapped([
        { user: ALICE_DN, permissions: { publish: { allow: ['alice.>'] } } },
      ]);
      const client = await secure(server.port, alice);
      await client.send('CONNECT {"verbose":false}\r\nSUB > 1\r\nPUB alice.x 2\r\nhi\r\n');
      await client.sync();
      await client.send('PUB bob.x 2\r\nhi\r\n');
      await client.waitFor(`-ERR 'Permissions Violation for Publish to "bob.x"'\r\n`);
      expect(client.text).toContain('MSG alice.x 1 2\r\nhi\r\n');
    });

    it.each([
      ['the subject with its RDNs in another order', 'O=Slipstream,OU=dev,CN=alice'],
      ['the SAN e-mail address', 'alice@example.com'],
      ['the SAN DNS name', 'alice.example.com'],
      ['the SAN URI', 'nats://alice.example.com'],
    ])('maps %s', async (_, user) => {
      const server = await mapped([{ user: 'someone else' }, { user }]);
      const client = await secure(server.port, alice);
      await client.send('CONNECT {"verbose":false}\r\n');
      expect(await client.sync()).toBe('PONG\r\n');
    });

    it('refuses a certificate that names no user, whatever user and password CONNECT gives', async () => {
      const server = await mapped([{ user: ALICE_DN }, { user: 'bob', pass: 'secret' }]);
      const client = await secure(server.port, stranger);
      await client.send('CONNECT {"verbose":false,"user":"bob","pass":"secret"}\r\nPING\r\n');
      const text = await client.waitClosed();
      expect(text).toBe("-ERR 'Authorization Violation'\r\n");
    });

    it('announces tls_verify, and refuses a client without a certificate', async () => {
      const server = await mapped([{ user: ALICE_DN }]);
      const { info, client } = await connectSecure(server.port, certs);
      track(client);
      expect(info).toMatchObject({ tls_required: true, tls_verify: true, auth_required: true });
      void client.send('CONNECT {"verbose":false}\r\nPING\r\n').catch(() => {});
      expect(await client.waitClosed()).not.toContain('PONG');
    });
  });

  it('with verify, refuses a client certificate that the ca_file did not sign', async () => {
    // The stranger's certificate is signed by the test CA; this server trusts another one.
    const server = await start({ verify: true, caFile: certs.otherCaFile });
    const client = await secure(server.port, stranger);
    void client.send('CONNECT {"verbose":false}\r\nPING\r\n').catch(() => {});
    expect(await client.waitClosed()).not.toContain('PONG');
  });

  describe('pinned_certs', () => {
    it('serves a client whose certificate key is pinned and refuses any other', async () => {
      const server = await start({ verify: true, pinnedCerts: [pinOf(certs.aliceCertFile)] });
      const pinned = await secure(server.port, alice);
      await pinned.send('CONNECT {"verbose":false}\r\n');
      expect(await pinned.sync()).toBe('PONG\r\n');

      const other = await secure(server.port, stranger);
      void other.send('CONNECT {"verbose":false}\r\nPING\r\n').catch(() => {});
      expect(await other.waitClosed()).not.toContain('PONG');
      expect(await closeReasons(server)).toContain('TLS Handshake Failure');
    });

    it('accepts upper-case pins', async () => {
      const server = await start({
        verify: true,
        pinnedCerts: [pinOf(certs.aliceCertFile).toUpperCase()],
      });
      const pinned = await secure(server.port, alice);
      await pinned.send('CONNECT {"verbose":false}\r\n');
      expect(await pinned.sync()).toBe('PONG\r\n');
    });
  });

  describe('cipher_suites', () => {
    const only = 'TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384';

    it('negotiates TLS 1.2 with a configured suite only; TLS 1.3 stays as it is', async () => {
      const server = await start({ cipherSuites: [only] });
      const tls12 = await secure(server.port, undefined, { maxVersion: 'TLSv1.2' });
      await tls12.send('CONNECT {"verbose":false}\r\n');
      await tls12.sync();
      const tls13 = await secure(server.port);
      await tls13.send('CONNECT {"verbose":false}\r\n');
      await tls13.sync();
      const connz = (await (await fetch(`${server.httpUrl}/connz`)).json()) as {
        connections: { tls_version: string; tls_cipher_suite: string }[];
      };
      const versions = connz.connections.map((c) => [c.tls_version, c.tls_cipher_suite]);
      expect(versions).toContainEqual(['1.2', only]);
      expect(versions.map(([version]) => version)).toContain('1.3');

      const refused = await secure(server.port, undefined, {
        maxVersion: 'TLSv1.2',
        ciphers: 'ECDHE-ECDSA-AES128-GCM-SHA256',
      });
      expect(refused.socket.readyState).not.toBe('open');
    });
  });

  it('serves the monitoring endpoints over HTTPS with the tls certificate (https_port)', async () => {
    const server = await start({}, { monitoring: false, httpsMonitoring: true });
    expect(server.httpUrl).toMatch(/^https:/);
    const varz = JSON.parse(await httpsText(`${server.httpUrl}/varz`)) as Record<string, unknown>;
    expect(varz.http_port).toBe(0);
    expect(varz.https_port).toBe(Number(new URL(server.httpUrl!).port));
  });

  it('answers a plain HTTP request to the HTTPS monitoring port with 400, as Go does', async () => {
    const server = await start({}, { monitoring: false, httpsMonitoring: true });
    const plain = track(await RawClient.connect(Number(new URL(server.httpUrl!).port)));
    await plain.send('GET /varz HTTP/1.1\r\nHost: localhost\r\n\r\n');
    await plain.waitClosed();
    expect(plain.text).toBe(
      'HTTP/1.0 400 Bad Request\r\n\r\nClient sent an HTTP request to an HTTPS server.\n',
    );
    // HTTPS on the same port still answers.
    expect(await httpsText(`${server.httpUrl}/healthz`)).toContain('ok');
  });
});

/** GET over HTTPS trusting the test CA (fetch cannot be given a CA). */
function httpsText(url: string): Promise<string> {
  return new Promise((resolve, reject) => {
    httpsGet(url, { ca: tlsClientOptions(certs).ca }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        body += chunk;
      });
      res.on('end', () => resolve(body));
    }).on('error', reject);
  });
}

// Newer than nats-server 2.9.10, which refuses these keys: against ours only.
describe('TLS modes of newer nats-server versions, against slipstream', () => {
  const servers: NatsServer[] = [];
  const clients: RawClient[] = [];
  afterEach(async () => {
    for (const client of clients.splice(0)) client.close();
    await Promise.all(servers.splice(0).map((server) => server.close()));
  });
  const start = async (tls: Partial<TlsOptions>, more: Partial<ServerOptions> = {}) => {
    const server = await startServer({
      host: '127.0.0.1',
      port: 0,
      logger: silentLogger,
      ...more,
      tls: {
        cert: readFileSync(certs.certFile, 'utf8'),
        key: readFileSync(certs.keyFile, 'utf8'),
        ...tls,
      },
    });
    servers.push(server);
    return server;
  };
  /** A client that starts the TLS handshake at once, before any INFO (nats.js `handshakeFirst`). */
  const tlsFirst = async (port: number, extra?: ConnectionOptions) => {
    const socket = connectTls({
      port,
      host: '127.0.0.1',
      ...tlsClientOptions(certs, undefined, extra),
    });
    const client = RawClient.over(socket);
    clients.push(client);
    await handshakeOver(socket);
    return client;
  };

  describe('handshake_first (2.10.4+)', () => {
    it('does the TLS handshake first and sends INFO after it, encrypted', async () => {
      const server = await start({ handshakeFirst: true });
      const client = await tlsFirst(server.port);
      await client.waitFor(/^INFO .*\r\n/);
      expect(client.info()).toMatchObject({ tls_required: true });
      await client.send('CONNECT {"verbose":false}\r\nPING\r\n');
      await client.waitFor('PONG\r\n');
    });

    it('sends nothing in the clear to a client that waits for INFO', async () => {
      const server = await start({ handshakeFirst: true, timeout: 500 });
      const plain = await RawClient.connect(server.port);
      clients.push(plain);
      await plain.waitClosed(3_000);
      expect(plain.text).toBe('');
    });

    it('shuts down at once with a client that reset its connection before the handshake', async () => {
      const server = await start({ handshakeFirst: true });
      // A port probe: connect, then reset at once.
      await new Promise<void>((resolve) => {
        const probe = connectTcp({ port: server.port, host: '127.0.0.1' }, () => {
          probe.destroy();
          resolve();
        });
      });
      await delay(200);
      const closed = server.close().then(() => 'closed');
      expect(await Promise.race([closed, delay(1_000).then(() => 'still waiting')])).toBe('closed');
    });

    it('with a fallback delay, greets a client that has not started TLS the usual way', async () => {
      const server = await start({ handshakeFirst: true, handshakeFirstFallback: 50 });
      const upgraded = await connectSecure(server.port, certs);
      clients.push(upgraded.client);
      expect(upgraded.info).toMatchObject({ tls_required: true });
      await upgraded.client.send('CONNECT {"verbose":false}\r\nPING\r\n');
      await upgraded.client.waitFor('PONG\r\n');
      const first = await tlsFirst(server.port);
      await first.send('CONNECT {"verbose":false}\r\nPING\r\n');
      await first.waitFor(/^INFO .*\r\nPONG\r\n$/);
    });

    it('with allow_non_tls, tells a TLS-first client TLS is required, a plain one it is available', async () => {
      // nats-server 2.10.4+ (server.go createClient) sets tls_required for the TLS-first INFO and
      // keeps the tls_available that allow_non_tls gave; the fallback INFO has only the latter.
      const server = await start(
        { handshakeFirst: true, handshakeFirstFallback: 50 },
        { allowNonTls: true },
      );
      const first = await tlsFirst(server.port);
      await first.waitFor(/^INFO .*\r\n/);
      expect(first.info()).toMatchObject({ tls_required: true, tls_available: true });
      const plain = await RawClient.connectAndGreet(server.port);
      clients.push(plain);
      expect(plain.info()).toMatchObject({ tls_available: true });
      expect(plain.info()).not.toHaveProperty('tls_required');
      await plain.send('CONNECT {"verbose":false}\r\nPING\r\n');
      await plain.waitFor('PONG\r\n');
    });
  });

  it('min_version 1.3 (2.10.21+) refuses a TLS 1.2 client', async () => {
    const server = await start({ minVersion: '1.3' });
    const { client: tls13 } = await connectSecure(server.port, certs);
    clients.push(tls13);
    await tls13.send('CONNECT {"verbose":false}\r\nPING\r\n');
    await tls13.waitFor('PONG\r\n');
    const { client: tls12 } = await connectSecure(server.port, certs, undefined, {
      maxVersion: 'TLSv1.2',
    });
    clients.push(tls12);
    expect((tls12.socket as TLSSocket).encrypted && tls12.socket.readyState === 'open').toBe(false);
  });
});

describe('TLS options startServer and checkOptions refuse, as nats-server', () => {
  // Functions: the certificates exist only once the tests run.
  const tls = () => ({
    cert: readFileSync(certs.certFile, 'utf8'),
    key: readFileSync(certs.keyFile, 'utf8'),
    ca: certs.ca,
  });
  it.each<[string, () => ServerOptions, RegExp]>([
    [
      'a pin that is not a hex SHA-256',
      () => ({ tls: { ...tls(), verify: true, pinnedCerts: ['abc'] } }),
      /pinnedCerts: abc/,
    ],
    [
      'an unknown cipher suite',
      () => ({ tls: { ...tls(), cipherSuites: ['TLS_NOPE'] } }),
      /unsupported cipher suite TLS_NOPE/,
    ],
    [
      'an empty cipher suite list',
      () => ({ tls: { ...tls(), cipherSuites: [] } }),
      /cipherSuites cannot be empty/,
    ],
    [
      'min_version 1.1',
      () => ({ tls: { ...tls(), minVersion: '1.1' as '1.2' } }),
      /minVersion must be/,
    ],
    [
      'HTTP and HTTPS monitoring together',
      () => ({ tls: tls(), httpPort: 0, httpsPort: 0 }),
      /both an HTTP/,
    ],
    ['HTTPS monitoring without tls', () => ({ httpsPort: 0 }), /httpsPort needs tls/],
  ])('%s', async (_, options, message) => {
    expect(() => checkOptions(options())).toThrow(message);
    await expect(
      startServer({ ...options(), host: '127.0.0.1', port: 0, logger: silentLogger }),
    ).rejects.toThrow(message);
  });
});
