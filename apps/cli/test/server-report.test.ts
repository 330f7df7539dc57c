import { freePort, type RunningNatsServer, startNatsServer } from '@slipstream/test-servers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configuredServers, slipSuite } from './slip.js';

// A hub with a system account (whose users may ask every server for its /leafz) and a leaf node
// port whose user binds leaves to APP; a nats-server leaf joins it.
const leafPort = await freePort();
const hubConfig = `
server_name: report-hub
accounts {
  SYS { users: [{ user: sys, password: sys }] }
  APP { users: [{ user: app, password: app }] }
}
system_account: SYS
leafnodes {
  host: 127.0.0.1
  port: ${leafPort}
  authorization { user: leaf, password: leaf, account: APP }
}
`;

describe.each(configuredServers(hubConfig))('server report leafnodes of $name', ({ start }) => {
  const { run, json } = slipSuite(start);
  let leaf: RunningNatsServer;
  beforeAll(async () => {
    leaf = await startNatsServer({
      config: `leafnodes { remotes = [ { url: "nats-leaf://leaf:leaf@127.0.0.1:${leafPort}" } ] }`,
    });
  });
  afterAll(async () => {
    await leaf?.stop();
  });
  const asSystem = (...args: string[]) => run('--user', 'sys', '--password', 'sys', ...args);

  it('lists the leaf connection of every server that answers', async () => {
    const report = await (async () => {
      for (let attempt = 0; ; attempt++) {
        const result = await asSystem('server', 'report', 'leafnodes', '1');
        if (result.stdout.includes('APP') || attempt === 40) return result;
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    })();
    expect(report).toMatchObject({ code: 0, stderr: '' });
    expect(report.stdout).toContain('Leafnode Report: 1 connection(s) on 1 server(s)');
    expect(report.stdout).toMatch(/report-hub .*APP .*127\.0\.0\.1:\d+/);
  });

  it('--json gives each server reply with its leafz', async () => {
    const replies = await json(
      '--user',
      'sys',
      '--password',
      'sys',
      'server',
      'report',
      'leafnodes',
      '1',
      '--account',
      'APP',
    );
    expect(replies).toHaveLength(1);
    expect(replies[0].server.name).toBe('report-hub');
    expect(replies[0].data.leafs).toEqual([
      expect.objectContaining({
        account: 'APP',
        ip: '127.0.0.1',
        subscriptions: expect.any(Number),
      }),
    ]);
  });
});
