import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { RunningNatsServer } from '@slipstream/test-servers';
import { makeTestCertificates } from '@slipstream/test-servers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { slipHome, startOurServer } from './slip.js';

describe('connection settings: flags, environment, saved contexts', () => {
  let server: RunningNatsServer;
  let home: Awaited<ReturnType<typeof slipHome>>;
  const url = () => server.url;

  beforeAll(async () => {
    [server, home] = await Promise.all([startOurServer(), slipHome()]);
  });
  afterAll(async () => {
    await Promise.all([server?.stop(), home?.remove()]);
  });

  it('context add saves the flags under XDG_CONFIG_HOME/slip, owner-only; select makes commands use it', async () => {
    const add = await home.run([
      'context',
      'add',
      'local',
      '-s',
      url(),
      '--description',
      'the test server',
      '--select',
    ]);
    expect(add).toEqual({ code: 0, stdout: '', stderr: 'Saved context "local" and selected it\n' });
    const file = join(home.dir, 'slip', 'context', 'local.json');
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({
      description: 'the test server',
      server: url(),
    });
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(await readFile(join(home.dir, 'slip', 'context.txt'), 'utf8')).toBe('local');
    // No -s: the selected context's server.
    expect((await home.run(['rtt', '1'])).stdout).toContain(`127.0.0.1:${server.port}:`);
  });

  it('NATS_URL beats the context, and -s beats NATS_URL', async () => {
    const nowhere = 'nats://127.0.0.1:1';
    const viaEnv = await home.run(['rtt', '1'], { NATS_URL: nowhere });
    expect(viaEnv.stderr).toContain('could not connect to nats://127.0.0.1:1');
    const viaFlag = await home.run(['-s', url(), 'rtt', '1'], { NATS_URL: nowhere });
    expect(viaFlag.code).toBe(0);
  });

  it('context ls marks the selected one; --context picks another; rm needs --force without a terminal', async () => {
    await home.run(['context', 'add', 'broken', '-s', 'nats://127.0.0.1:1']);
    const ls = await home.run(['context', 'ls']);
    expect(ls.stdout).toMatch(/│ local\*\s+│ the test server\s+│ nats:\/\/127\.0\.0\.1:\d+\s+│/);
    expect(ls.stdout).toMatch(/│ broken\s+│\s+│ nats:\/\/127\.0\.0\.1:1\s+│/);
    const json = JSON.parse((await home.run(['context', 'ls', '--json'])).stdout);
    expect(json.map((c: { name: string; selected: boolean }) => [c.name, c.selected])).toEqual([
      ['broken', false],
      ['local', true],
    ]);
    expect((await home.run(['--context', 'broken', 'rtt'])).code).toBe(1);
    const refused = await home.run(['context', 'rm', 'broken']);
    expect(refused).toMatchObject({
      code: 1,
      stderr:
        'slip: error: add --force to delete context "broken" without a terminal to confirm it\n',
    });
    expect((await home.run(['context', 'rm', 'broken', '-f'])).code).toBe(0);
    expect((await home.run(['--context', 'broken', 'rtt'])).stderr).toBe(
      'slip: error: unknown context "broken"\n',
    );
  });

  it('user and password come from flags, NATS_USER/NATS_PASSWORD or a context', async () => {
    const secured = await startOurServer('authorization { user: "ann", password: "s3cret" }');
    try {
      const asAnon = await home.run(['-s', secured.url, 'rtt', '1']);
      expect(asAnon).toMatchObject({
        code: 1,
        stderr: expect.stringMatching(/^slip: error: .*[Aa]uthorization/),
      });
      const wrong = await home.run([
        '-s',
        secured.url,
        '--user',
        'ann',
        '--password',
        'nope',
        'rtt',
        '1',
      ]);
      expect(wrong.code).toBe(1);
      expect(
        (await home.run(['-s', secured.url, '--user', 'ann', '--password', 's3cret', 'rtt', '1']))
          .code,
      ).toBe(0);
      const env = { NATS_URL: secured.url, NATS_USER: 'ann', NATS_PASSWORD: 's3cret' };
      expect((await home.run(['rtt', '1'], env)).code).toBe(0);
      await home.run([
        'context',
        'add',
        'secured',
        '-s',
        secured.url,
        '--user',
        'ann',
        '--password',
        's3cret',
      ]);
      expect((await home.run(['--context', 'secured', 'rtt', '1'])).code).toBe(0);
      const info = await home.run(['context', 'info', 'secured']);
      expect(info.stdout).toMatch(/│ password\s+│ \*\*\*\*\*\s+│/);
      expect(info.stdout).not.toContain('s3cret');
    } finally {
      await secured.stop();
    }
  });

  it('--tlsca, --tlscert and --tlskey make a mutual TLS connection, and a context keeps them', async () => {
    const certs = await makeTestCertificates();
    const secured = await startOurServer(
      `tls { cert_file: "${certs.certFile}", key_file: "${certs.keyFile}", ca_file: "${certs.caFile}", verify: true }`,
    );
    try {
      const tls = [
        '--tlsca',
        certs.caFile,
        '--tlscert',
        certs.clientCertFile,
        '--tlskey',
        certs.clientKeyFile,
      ];
      const info = JSON.parse(
        (await home.run(['-s', secured.url, ...tls, '--json', 'server', 'info'])).stdout,
      );
      expect(info).toMatchObject({ tls_required: true, tls_verify: true });
      const withoutClientCert = await home.run([
        '-s',
        secured.url,
        '--tlsca',
        certs.caFile,
        'rtt',
        '1',
      ]);
      expect(withoutClientCert).toMatchObject({ code: 1, stdout: '' });
      expect(withoutClientCert.stderr).toMatch(/^slip: error: [^\n]+\n$/);
      const untrusted = await home.run([
        '-s',
        secured.url,
        '--tlsca',
        certs.otherCaFile,
        ...tls.slice(2),
        'rtt',
        '1',
      ]);
      expect(untrusted.stderr).toMatch(/^slip: error: [^\n]*certificate[^\n]*\n$/);
      await home.run(['context', 'add', 'tls', '-s', secured.url, ...tls]);
      expect((await home.run(['--context', 'tls', 'rtt', '1'])).code).toBe(0);
    } finally {
      await secured.stop();
      await certs.remove();
    }
  });

  it('--nkey signs the server nonce with the seed in the file', async () => {
    // A user made for this test only: its seed is no secret.
    const seed = 'SUAPUSTIA2VPXNMB5OFDTV522YOY5GZ5B5KTBHDOQ235EUSPD6MSQHKAME';
    const publicKey = 'UAZAO6WRR2CZAWEDTBJFU77MKS44QUXKQA4IMSWRH44UONGFQB2UYLII';
    const secured = await startOurServer(`authorization { users: [{ nkey: ${publicKey} }] }`);
    try {
      const seedFile = join(home.dir, 'user.nk');
      await writeFile(seedFile, `${seed}\n`);
      expect((await home.run(['-s', secured.url, '--nkey', seedFile, 'rtt', '1'])).code).toBe(0);
      const without = await home.run(['-s', secured.url, 'rtt', '1']);
      expect(without).toMatchObject({
        code: 1,
        stderr: expect.stringMatching(/^slip: error: .*[Aa]uthorization/),
      });
    } finally {
      await secured.stop();
    }
  });
});
