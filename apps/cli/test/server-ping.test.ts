import { describe, expect, it } from 'vitest';
import { configuredServers, failure, slipSuite } from './slip.js';

// A server with a system account (users in it may ask every server for its stats) and an
// application account.
const systemAccountConfig = `
server_name: ping-test
accounts {
  SYS { users: [{ user: sys, password: sys }] }
  APP { users: [{ user: app, password: app }] }
}
system_account: SYS
`;

describe.each(configuredServers(systemAccountConfig))(
  'server ping through the system account of $name',
  ({ start }) => {
    const { run, json } = slipSuite(start);
    const asSystem = (...args: string[]) => run('--user', 'sys', '--password', 'sys', ...args);

    it('lists each server that answers with its name, reply size and round trip, then the statistics', async () => {
      const started = performance.now();
      const ping = await asSystem('--timeout', '15s', 'server', 'ping', '1');
      // The one server expected answered: slip ends then, not at --timeout.
      expect(performance.now() - started).toBeLessThan(10_000);
      expect(ping).toMatchObject({ code: 0, stderr: '' });
      expect(ping.stdout).toMatch(
        /^ping-test {51} size=\d{3,} rtt=[\d.]+(µs|ms)\n\n---- ping statistics ----\n1 replies max: [\d.]+ min: [\d.]+ avg: [\d.]+\n$/,
      );
      const withId = await asSystem('server', 'ping', '1', '--id');
      expect(withId.stdout).toMatch(/^N[A-Z0-9]{55} ping-test /);
    });

    it('--json has every reply; a server expected but silent is counted missing', async () => {
      const result = await json(
        '--user',
        'sys',
        '--password',
        'sys',
        '--timeout',
        '1s',
        'server',
        'ping',
        '2',
      );
      expect(result).toMatchObject({
        replies: [{ name: 'ping-test', id: expect.stringMatching(/^N/) }],
        expected: 2,
        missing: 1,
      });
      expect(result.replies[0].size).toBeGreaterThan(100);
      const human = await asSystem('--timeout', '1s', 'server', 'ping', '2');
      expect(human.stdout).toMatch(/\n1 replies .*\n\nMissing 1 server\(s\)\n$/);
    });

    it('a user outside the system account gets one clear error line', async () => {
      expect(await run('--user', 'app', '--password', 'app', 'server', 'ping')).toEqual(
        failure(
          '503 status from $SYS.REQ.SERVER.PING, ensure a system account is used with appropriate permissions',
        ),
      );
    });
  },
);
