import { readFile } from 'node:fs/promises';
import { connect as connectTcp } from 'node:net';
import { type ConnectionOptions, connect as connectTls } from 'node:tls';
import {
  freePort,
  makeTestCertificates,
  type RunningNatsServer,
  startNatsServer,
  type TestCertificates,
} from '@slipstream/test-servers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configServers } from './config-servers.js';

// One config file per case, run by nats-server 2.9.10 and by the slipstream-server bin: the TLS
// keys curve_preferences and insecure must do the same on both, on the client port, the
// WebSocket listener and the HTTPS monitoring port.

let certs: TestCertificates;
beforeAll(async () => {
  certs = await makeTestCertificates();
});
afterAll(async () => {
  await certs?.remove();
});

/** The outcome of a TLS handshake: the key exchange group it agreed on, or the error code. */
type Handshake = { group: string } | { refused: string };

/** Starts a node:tls client trusting the test CA and reports how its handshake went. */
function handshake(options: ConnectionOptions): Promise<Handshake> {
  return new Promise((resolve) => {
    const secure = connectTls({ servername: 'localhost', ca: certs.ca, ...options });
    secure.once('secureConnect', () => {
      const { name } = secure.getEphemeralKeyInfo() as { name?: string };
      secure.destroy();
      resolve({ group: name ?? 'unknown' });
    });
    secure.once('error', (error: NodeJS.ErrnoException) => {
      secure.destroy();
      resolve({ refused: error.code ?? error.message });
    });
  });
}

/** A handshake on the client port, after the INFO in the clear, as NATS clients upgrade. */
async function clientPortHandshake(port: number, options: ConnectionOptions): Promise<Handshake> {
  const socket = connectTcp(port, '127.0.0.1');
  await new Promise((resolve, reject) => {
    socket.once('data', resolve);
    socket.once('error', reject);
  });
  return handshake({ socket, ...options });
}

/** A handshake straight away, as an HTTPS or wss:// client does. */
function directHandshake(port: number, options: ConnectionOptions): Promise<Handshake> {
  return handshake({ host: '127.0.0.1', port, ...options });
}

/** Runs `body` with `bin` serving `config`, then stops it. */
async function serving(
  bin: string | undefined,
  config: string,
  body: (server: RunningNatsServer) => Promise<void>,
): Promise<void> {
  const server = await startNatsServer({ bin, config });
  try {
    await body(server);
  } finally {
    await server.stop();
  }
}

/** The test certificate and key, plus `more`, as the inside of a `tls {}` block. */
function tlsBlock(more: string): string {
  return `cert_file: "${certs.certFile}", key_file: "${certs.keyFile}", ${more}`;
}

describe.each(configServers)('curve_preferences run by $name', ({ bin }) => {
  it('agrees only on the listed curves, on the client port, wss:// and HTTPS monitoring', async () => {
    const [wsPort, httpsPort] = [await freePort(), await freePort()];
    const curves = 'curve_preferences: ["CurveP384", "CurveP521"]';
    const config = [
      `tls { ${tlsBlock(curves)} }`,
      `websocket { host: 127.0.0.1, port: ${wsPort}, tls { ${tlsBlock(curves)} } }`,
      `https: "127.0.0.1:${httpsPort}"`,
    ].join('\n');
    await serving(bin, config, async (server) => {
      const listeners = [
        (options: ConnectionOptions) => clientPortHandshake(server.port, options),
        (options: ConnectionOptions) => directHandshake(wsPort, options),
        (options: ConnectionOptions) => directHandshake(httpsPort, options),
      ];
      for (const [index, attempt] of listeners.entries()) {
        const which = ['client port', 'websocket', 'https monitoring'][index];
        expect(await attempt({ ecdhCurve: 'P-384' }), which).toEqual({ group: 'secp384r1' });
        expect(await attempt({ ecdhCurve: 'P-521' }), which).toEqual({ group: 'secp521r1' });
        for (const ecdhCurve of ['X25519:P-256', 'P-256']) {
          expect(await attempt({ ecdhCurve }), `${which} ${ecdhCurve}`).toHaveProperty('refused');
          expect(await attempt({ ecdhCurve, maxVersion: 'TLSv1.2' })).toHaveProperty('refused');
        }
      }
    });
  });

  it('offers X25519 and the three NIST curves by default, not X448', async () => {
    await serving(bin, `tls { ${tlsBlock('')} }`, async (server) => {
      const groups: Record<string, Handshake> = {};
      for (const ecdhCurve of ['X25519', 'P-256', 'P-384', 'P-521', 'X448']) {
        groups[ecdhCurve] = await clientPortHandshake(server.port, { ecdhCurve });
      }
      expect(groups).toMatchObject({
        X25519: { group: 'X25519' },
        'P-256': { group: 'prime256v1' },
        'P-384': { group: 'secp384r1' },
        'P-521': { group: 'secp521r1' },
        X448: { refused: expect.any(String) },
      });
    });
  });

  it('refuses to start with an unknown curve name', async () => {
    const server = startNatsServer({
      bin,
      config: `tls { ${tlsBlock('curve_preferences: [P256]')} }`,
    });
    await expect(server).rejects.toThrow(/curve preference P256/);
  });
});

/** Upgrades to TLS on the client port, sends CONNECT and PING: true if PONG comes back. */
async function served(port: number, options: ConnectionOptions): Promise<boolean> {
  const socket = connectTcp(port, '127.0.0.1');
  await new Promise((resolve, reject) => {
    socket.once('data', resolve);
    socket.once('error', reject);
  });
  return new Promise((resolve) => {
    const secure = connectTls({ socket, servername: 'localhost', ca: certs.ca, ...options });
    let text = '';
    secure.once('secureConnect', () => secure.write('CONNECT {"verbose":false}\r\nPING\r\n'));
    secure.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      if (text.includes('PONG\r\n')) {
        secure.destroy();
        resolve(true);
      }
    });
    secure.once('error', () => resolve(false));
    secure.once('close', () => resolve(false));
  });
}

describe.each(configServers)('insecure on a listener, run by $name', ({ bin }) => {
  it('still checks client certificates under verify', async () => {
    const client = {
      cert: await readFile(certs.clientCertFile),
      key: await readFile(certs.clientKeyFile),
    };
    const signedBy = (caFile: string) =>
      `tls { ${tlsBlock(`ca_file: "${caFile}", verify: true, insecure: true`)} }`;
    await serving(bin, signedBy(certs.caFile), async (server) => {
      expect(await served(server.port, client)).toBe(true);
      expect(await served(server.port, {})).toBe(false);
    });
    // The client certificate is signed by the test CA, which this ca_file is not.
    await serving(bin, signedBy(certs.otherCaFile), async (server) => {
      expect(await served(server.port, client)).toBe(false);
    });
  });
});
