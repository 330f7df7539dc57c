import { createHash, X509Certificate } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { get as httpsGet } from 'node:https';
import { connect as connectTcp } from 'node:net';
import { join } from 'node:path';
import { type ConnectionOptions, connect as connectTls } from 'node:tls';
import { connect, type NodeConnectionOptions } from '@nats-io/transport-node';
import { makeTestCertificates, type TestCertificates } from '@slipstream/test-servers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectPrinted, readInfo, run, serving } from './server-process.js';

/** Should a failing start not fail, it still listens on 127.0.0.1 only, on free ports. */
const safePorts = ['-a', '127.0.0.1', '-p', '-1', '-m', '0'];

let files: TestCertificates;
beforeAll(async () => {
  files = await makeTestCertificates();
});
afterAll(async () => {
  await files?.remove();
});

/** Client TLS options that trust the test CA and present the client certificate it signed. */
function withClientCertificate(): NodeConnectionOptions['tls'] {
  return { caFile: files.caFile, certFile: files.clientCertFile, keyFile: files.clientKeyFile };
}

/** Connects the official client over TLS, sends a request to itself and returns the reply. */
async function roundTrip(port: number, tls: NodeConnectionOptions['tls']): Promise<string> {
  const nc = await connect({ servers: `127.0.0.1:${port}`, tls, reconnect: false });
  try {
    const sub = nc.subscribe('echo', {
      callback: (_err, msg) => {
        msg.respond(msg.data);
      },
    });
    const reply = await nc.request('echo', 'over tls', { timeout: 5000 });
    sub.unsubscribe();
    return reply.string();
  } finally {
    await nc.close();
  }
}

/** The TLS error a client sees when it cannot get in, for each reason. */
const refusedBecause = {
  /** The client does not trust the CA that signed the server's certificate. */
  serverNotTrusted: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  /** The server asks for a client certificate (TLS 1.3 alert 116) and the client has none. */
  clientCertificateRequired: 'ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED',
} as const;

/**
 * Expects the TLS upgrade to fail for exactly `reason`. The upgrade is done as NATS clients do it
 * (INFO in the clear, then the handshake) but nothing is sent after it: a CONNECT the server has
 * not read when it closes would make its close a reset, which may overtake the TLS alert.
 */
async function expectRefused(
  port: number,
  options: ConnectionOptions,
  reason: keyof typeof refusedBecause,
): Promise<void> {
  const refusal = await new Promise<string>((resolve, reject) => {
    const plain = connectTcp(port, '127.0.0.1');
    plain.once('error', reject);
    plain.once('data', () => {
      const secure = connectTls({ socket: plain, ...options });
      const kept = setTimeout(() => {
        secure.destroy();
        resolve('connection kept open for 3 s');
      }, 3000);
      secure.once('error', (error: NodeJS.ErrnoException) => {
        clearTimeout(kept);
        resolve(error.code ?? error.message);
      });
      secure.once('close', () => {
        clearTimeout(kept);
        resolve('connection closed without a TLS error');
      });
    });
  });
  expect(refusal, `refused because ${reason}`).toBe(refusedBecause[reason]);
}

describe('slipstream-server with TLS', () => {
  it('serves the official client over TLS with --tls --tlscert --tlskey', async () => {
    const args = ['-m', '0', '--tls', '--tlscert', files.certFile, '--tlskey', files.keyFile];
    await serving(args, async (port, server) => {
      expect(await readInfo(port)).toMatchObject({ tls_required: true });
      // A client that does not trust the server's CA refuses the server.
      await expectRefused(port, { ca: await readFile(files.otherCaFile) }, 'serverNotTrusted');
      expect(await roundTrip(port, { caFile: files.caFile })).toBe('over tls');
      expect(server.output()).not.toContain('TLS is not supported');
    });
  });

  it('requires a client certificate signed by --tlscacert with --tlsverify', async () => {
    const args = [
      '-m',
      '0',
      '--tlsverify',
      '--tlscert',
      files.certFile,
      '--tlskey',
      files.keyFile,
      '--tlscacert',
      files.caFile,
    ];
    await serving(args, async (port) => {
      expect(await readInfo(port)).toMatchObject({ tls_required: true, tls_verify: true });
      await expectRefused(port, { ca: await readFile(files.caFile) }, 'clientCertificateRequired');
      expect(await roundTrip(port, withClientCertificate())).toBe('over tls');
    });
  });

  it('reads a tls {} block from the config file', async () => {
    const config = await writeTlsConfig('tls.conf', ['verify: true', 'timeout: 1.5']);
    await serving(['-c', config, '-m', '0'], async (port, server) => {
      expect(await readInfo(port)).toMatchObject({ tls_required: true, tls_verify: true });
      await expectRefused(port, { ca: await readFile(files.caFile) }, 'clientCertificateRequired');
      expect(await roundTrip(port, withClientCertificate())).toBe('over tls');
      expect(server.output()).not.toMatch(/tls: .*not supported/i);
    });
  });

  it('turns the config file TLS off with --tls=false', async () => {
    const config = join(files.dir, 'tls-off.conf');
    await writeFile(config, `tls { cert_file: "${files.certFile}", key_file: "nope.pem" }\n`);
    await serving(['-c', config, '-m', '0', '--tls=false'], async (port) => {
      expect((await readInfo(port)).tls_required).toBeUndefined();
    });
  });

  it('exits 1 naming a TLS file it cannot read, also under -t', async () => {
    const missing = join(files.dir, 'missing-key.pem');
    const server = run([...safePorts, '--tls', '--tlscert', files.certFile, '--tlskey', missing]);
    expect(await server.exit).toBe(1);
    await expectPrinted(server, `cannot read the TLS private key "${missing}"`);

    const config = join(files.dir, 'bad-tls.conf');
    await writeFile(config, `tls { cert_file: "${missing}", key_file: "${files.keyFile}" }\n`);
    const check = run([...safePorts, '-t', '-c', config]);
    expect(await check.exit).toBe(1);
    await expectPrinted(check, `cannot read the TLS server certificate "${missing}"`);
  });

  it('exits 1 when TLS is asked for without a certificate', async () => {
    const server = run([...safePorts, '--tls']);
    expect(await server.exit).toBe(1);
    await expectPrinted(server, 'TLS needs a server certificate: give --tlscert');
  });
});

describe('slipstream-server TLS modes from the config file', () => {
  const alice = (): NodeConnectionOptions['tls'] => ({
    caFile: files.caFile,
    certFile: files.aliceCertFile,
    keyFile: files.aliceKeyFile,
  });

  it('maps certificates to users, pins them, and serves monitoring over HTTPS', async () => {
    const pem = await readFile(files.aliceCertFile, 'utf8');
    const spki = new X509Certificate(pem).publicKey.export({ type: 'spki', format: 'der' });
    const pin = createHash('sha256').update(spki).digest('hex');
    const config = await writeTlsConfig(
      'tls-modes.conf',
      [
        'verify_and_map: true',
        `pinned_certs: ["${pin}"]`,
        'cipher_suites: ["TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256"]',
      ],
      ['authorization { users = [ { user: "CN=alice,OU=dev,O=Slipstream" } ] }', 'https_port: -1'],
    );
    await serving(['-c', config], async (port, server) => {
      expect(await roundTrip(port, alice())).toBe('over tls');
      // The 'client' certificate is signed by the same CA but neither pinned nor mapped.
      await expect(roundTrip(port, withClientCertificate())).rejects.toThrow();
      await expectPrinted(server, 'Starting https monitor on');
      const httpsPort = /Starting https monitor on [^:]+:(\d+)/.exec(server.output())![1];
      const varz = await httpsJson(`https://127.0.0.1:${httpsPort}/varz`);
      expect(varz).toMatchObject({ https_port: Number(httpsPort), http_port: 0 });
    });
  });

  it('does the TLS handshake first with handshake_first, for a client that asks for it', async () => {
    const config = join(files.dir, 'tls-first.conf');
    await writeFile(
      config,
      `tls { cert_file: "${files.certFile}", key_file: "${files.keyFile}", handshake_first: true }\n`,
    );
    await serving(['-c', config, '-m', '0'], async (port) => {
      expect(await roundTrip(port, { caFile: files.caFile, handshakeFirst: true })).toBe(
        'over tls',
      );
    });
  });
});

/**
 * Writes a config file whose `tls {}` block has the test certificate, key and CA plus `tlsLines`,
 * followed by `moreLines`; resolves with its path.
 */
async function writeTlsConfig(
  name: string,
  tlsLines: string[],
  moreLines: string[] = [],
): Promise<string> {
  const config = join(files.dir, name);
  const block = [
    `cert_file: "${files.certFile}"`,
    `key_file: "${files.keyFile}"`,
    `ca_file: "${files.caFile}"`,
    ...tlsLines,
  ];
  const text = ['tls {', ...block.map((line) => `  ${line}`), '}', ...moreLines, ''];
  await writeFile(config, text.join('\n'));
  return config;
}

/** GET over HTTPS trusting the test CA. */
async function httpsJson(url: string): Promise<Record<string, unknown>> {
  const ca = await readFile(files.caFile);
  return new Promise((resolve, reject) => {
    httpsGet(url, { ca }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        body += chunk;
      });
      res.on('end', () => resolve(JSON.parse(body) as Record<string, unknown>));
    }).on('error', reject);
  });
}
