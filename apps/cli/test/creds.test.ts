import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { TestOperator } from '@slipstream/test-servers';
import { beforeAll, describe, expect, it } from 'vitest';
import { configuredServers, failure, slipSuite } from './slip.js';

// Operator mode (decentralized JWT auth) with a memory resolver, the same config file for both
// servers. Users authenticate with .creds files only.
const operator = new TestOperator();
const app = operator.account('APP');

describe.each(configuredServers(operator.config()))(
  '--creds against $name in operator mode',
  ({ start }) => {
    const { server, home } = slipSuite(start);
    const files: Record<'app' | 'sys' | 'stranger' | 'broken', string> = {
      app: '',
      sys: '',
      stranger: '',
      broken: '',
    };

    beforeAll(async () => {
      // A user of an account of another operator, which this server does not trust.
      const stranger = new TestOperator().account('ELSEWHERE').user('eve');
      const contents = {
        app: app.user('alice').creds,
        sys: operator.system.user('admin').creds,
        stranger: stranger.creds,
        broken: 'not a creds file\n',
      };
      for (const [name, text] of Object.entries(contents)) {
        const file = join(home().dir, `${name}.creds`);
        await writeFile(file, text, { mode: 0o600 });
        files[name as keyof typeof files] = file;
      }
    });

    const withCreds = (creds: string, ...args: string[]) => [
      '-s',
      server().url,
      '--creds',
      creds,
      ...args,
    ];

    it('pub, sub, req and reply authenticate with a creds file', async () => {
      const sub = home().start(withCreds(files.app, 'sub', 'greetings', '--count', '1'));
      await sub.printed('Subscribing on greetings');
      expect((await home().run(withCreds(files.app, 'pub', 'greetings', 'hello'))).code).toBe(0);
      const received = await sub.done;
      expect(received.code).toBe(0);
      expect(received.stdout).toContain('Received on "greetings"\n\nhello\n');

      const reply = home().start(withCreds(files.app, 'reply', 'service', 'pong', '--count', '1'));
      await reply.printed('service');
      const answer = await home().run(withCreds(files.app, 'req', 'service', 'ping', '--raw'));
      expect(answer).toMatchObject({ code: 0, stdout: 'pong\n' });
      expect((await reply.done).code).toBe(0);
    });

    it('NATS_CREDS stands in for --creds; without credentials the server refuses', async () => {
      const viaEnv = await home().run(['-s', server().url, 'pub', 'greetings', 'hi'], {
        NATS_CREDS: files.app,
      });
      expect(viaEnv).toMatchObject({ code: 0, stderr: 'Published 2 bytes to "greetings"\n' });
      expect(await home().run(['-s', server().url, 'pub', 'greetings', 'hi'])).toEqual(
        failure('Authorization Violation'),
      );
    });

    it('a broken, missing or untrusted creds file is one clear error line', async () => {
      expect(await home().run(withCreds(files.broken, 'pub', 'x', 'y'))).toEqual(
        failure(
          `${files.broken} is not a usable creds file: creds do not hold a user JWT and seed`,
        ),
      );
      const missing = join(home().dir, 'missing.creds');
      expect(await home().run(withCreds(missing, 'pub', 'x', 'y'))).toEqual(
        failure(`cannot read the creds file: ENOENT: no such file or directory, open '${missing}'`),
      );
      expect(await home().run(withCreds(files.stranger, 'pub', 'x', 'y'))).toEqual(
        failure('Authorization Violation'),
      );
    });

    it('a system account user pings the servers', async () => {
      const ping = await home().run(withCreds(files.sys, 'server', 'ping', '1'));
      expect(ping.code).toBe(0);
      expect(ping.stdout).toMatch(
        /^N[A-Z0-9]{55} +size=\d+ rtt=.*\n\n---- ping statistics ----\n1 replies /,
      );
    });

    it('a context saved with --creds connects with them', async () => {
      const saved = await home().run([
        ...withCreds(files.app),
        'context',
        'add',
        'operated',
        '--select',
      ]);
      expect(saved.stderr).toBe('Saved context "operated" and selected it\n');
      expect(await home().run(['pub', 'greetings', 'from the context'])).toMatchObject({
        code: 0,
        stderr: 'Published 16 bytes to "greetings"\n',
      });
      expect(
        (await home().run(['--context', 'operated', '--json', 'server', 'info'])).stdout,
      ).toContain(`"port": ${server().port}`);
    });
  },
);
