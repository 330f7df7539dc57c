import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
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

/** Resolves with the error the official client gets when it cannot get in. */
async function refusal(port: number, tls: NodeConnectionOptions['tls']): Promise<unknown> {
  try {
    const nc = await connect({ servers: `127.0.0.1:${port}`, tls, reconnect: false });
    // With TLS 1.3 the server may refuse the client certificate just after the handshake.
    await nc.flush();
    await nc.close();
  } catch (error) {
    return error;
  }
  throw new Error('expected the connection to be refused');
}

describe('slipstream-server with TLS', () => {
  it('serves the official client over TLS with --tls --tlscert --tlskey', async () => {
    const args = ['-m', '0', '--tls', '--tlscert', files.certFile, '--tlskey', files.keyFile];
    await serving(args, async (port, server) => {
      expect(await readInfo(port)).toMatchObject({ tls_required: true });
      expect(await roundTrip(port, { caFile: files.caFile })).toBe('over tls');
      // A client that does not trust the server's CA refuses the server.
      expect(await refusal(port, { caFile: files.otherCaFile })).toBeInstanceOf(Error);
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
      expect(await refusal(port, { caFile: files.caFile })).toBeInstanceOf(Error);
      expect(await roundTrip(port, withClientCertificate())).toBe('over tls');
    });
  });

  it('reads a tls {} block from the config file', async () => {
    const config = join(files.dir, 'tls.conf');
    await writeFile(
      config,
      [
        'tls {',
        `  cert_file: "${files.certFile}"`,
        `  key_file: "${files.keyFile}"`,
        `  ca_file: "${files.caFile}"`,
        '  verify: true',
        '  timeout: 1.5',
        '}',
        '',
      ].join('\n'),
    );
    await serving(['-c', config, '-m', '0'], async (port, server) => {
      expect(await readInfo(port)).toMatchObject({ tls_required: true, tls_verify: true });
      expect(await refusal(port, { caFile: files.caFile })).toBeInstanceOf(Error);
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
