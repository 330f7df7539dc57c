import type { RunningNatsServer } from '@slipstream/test-servers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { coreServers, slipHome } from './slip.js';

describe.each(coreServers)('core commands against $name', ({ start }) => {
  let server: RunningNatsServer;
  let home: Awaited<ReturnType<typeof slipHome>>;
  const run = (...args: string[]) => home.run(['-s', server.url, ...args]);
  const startSlip = (...args: string[]) => home.start(['-s', server.url, ...args]);

  beforeAll(async () => {
    [server, home] = await Promise.all([start(), slipHome()]);
  });
  afterAll(async () => {
    await Promise.all([server?.stop(), home?.remove()]);
  });

  it('pub --count with a template body and a header reaches sub, which stops after --count', async () => {
    const sub = startSlip('sub', 'orders.>', '--count', '3');
    await sub.printed('Subscribing on orders.>');
    const pub = await run(
      'pub',
      'orders.new',
      'order {{Count}} at {{TimeStamp}}',
      '--count',
      '3',
      '-H',
      'Source:cli',
    );
    expect(pub.code).toBe(0);
    expect(pub.stderr).toMatch(/^Published 3 messages \(\d+ bytes\) to "orders.new"\n$/);
    const done = await sub.done;
    expect(done.code).toBe(0);
    for (const n of [1, 2, 3]) {
      expect(done.stdout).toMatch(
        new RegExp(
          `\\[#${n}\\] Received on "orders.new"\\nSource: cli\\n\\norder ${n} at \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z\\n`,
        ),
      );
    }
    expect(done.stdout).not.toContain('\x1b['); // no colour codes into a pipe
  });

  it('sub --json prints one JSON object a message; --raw only the bodies; a queue member gets its share', async () => {
    const json = startSlip('--json', 'sub', 'j.*', '--count', '1');
    const raw = startSlip('sub', 'j.*', '--raw', '--count', '2');
    const queued = startSlip('sub', 'j.*', '--queue', 'workers', '--raw', '--count', '2');
    await Promise.all([json, raw, queued].map((s) => s.printed('Subscribing on j.*')));
    expect(queued.stderr()).toContain('in queue group workers');
    expect((await run('pub', 'j.one', 'first', '-H', 'A:1', '--reply', 'back')).code).toBe(0);
    expect((await run('pub', 'j.two', 'second')).code).toBe(0);
    expect(JSON.parse((await json.done).stdout)).toEqual({
      subject: 'j.one',
      reply: 'back',
      headers: { A: ['1'] },
      data: 'first',
    });
    expect((await raw.done).stdout).toBe('first\nsecond\n');
    expect((await queued.done).stdout).toBe('first\nsecond\n');
  });

  it('req gets what reply answers, with the request and a counter in the template', async () => {
    const reply = startSlip('reply', 'svc.echo', 'got {{Request}} as #{{Count}}', '--count', '2');
    await reply.printed('Listening on "svc.echo"');
    const first = await run('req', 'svc.echo', 'hello');
    expect(first.code).toBe(0);
    expect(first.stderr).toBe('Sending request on "svc.echo"\n');
    expect(first.stdout).toMatch(/^Received with rtt [\d.]+(µs|ms)\n\ngot hello as #1\n/);
    const second = await run('req', 'svc.echo', 'again', '--raw');
    expect(second).toEqual({ code: 0, stdout: 'got again as #2\n', stderr: '' });
    expect((await reply.done).code).toBe(0);
  });

  it('reply --command answers with the command output, given the request on stdin', async () => {
    const reply = startSlip(
      'reply',
      'svc.upper',
      '--command',
      'tr a-z A-Z; printf " from $NATS_REQUEST_SUBJECT"',
    );
    await reply.printed('Listening on "svc.upper"');
    expect((await run('req', 'svc.upper', 'shout', '--raw')).stdout).toBe('SHOUT from svc.upper\n');
    reply.signal('SIGINT');
    expect((await reply.done).code).toBe(0);
  });

  it('req --json gives the reply as JSON; no responder is one error line and exit 1', async () => {
    const reply = startSlip('reply', 'svc.json', '--echo', '--count', '1');
    await reply.printed('Listening on');
    const answered = await run('--json', 'req', 'svc.json', '{"a":1}');
    expect(JSON.parse(answered.stdout)).toEqual({
      subject: expect.stringMatching(/^_INBOX\./),
      data: '{"a":1}',
    });
    const nobody = await run('req', 'nobody.home', 'x');
    expect(nobody.code).toBe(1);
    expect(nobody.stderr).toMatch(
      /^(Sending request on "nobody.home"\n)?slip: error: no responders[^\n]*\n$/,
    );
  });

  it('Ctrl-C stops a sub cleanly: exit 0, no stack trace', async () => {
    const sub = startSlip('sub', 'quiet');
    await sub.printed('Subscribing on quiet');
    sub.signal('SIGINT');
    const done = await sub.done;
    expect(done).toEqual({ code: 0, stdout: '', stderr: 'Subscribing on quiet\n' });
  });

  it('rtt, server info, server ping and account info describe the connection', async () => {
    const rtt = await run('rtt', '3');
    expect(rtt.stdout).toMatch(new RegExp(`^127\\.0\\.0\\.1:${server.port}: [\\d.]+(µs|ms)\\n$`));
    const info = JSON.parse((await run('--json', 'server', 'info')).stdout);
    // The version is each server's own (nats-server 2.9.10; ours the level it implements).
    expect(info).toMatchObject({
      port: server.port,
      version: expect.stringMatching(/^2\.\d+\.\d+$/),
      headers: true,
    });
    const human = await run('server', 'info');
    expect(human.stdout).toContain(`Host: 127.0.0.1:${server.port}`);
    // Servers are pinged through the system account, which this user is not in.
    expect(await run('server', 'ping')).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'slip: error: 503 status from $SYS.REQ.SERVER.PING, ensure a system account is used with appropriate permissions\n',
    });
    const account = await run('account', 'info');
    expect(account.stdout).toContain(`Connected URL: 127.0.0.1:${server.port}`);
    expect(account.stdout).toContain('JetStream is not enabled for this account');
  });

  it('server check connection prints a Nagios line; a critical threshold exits 2', async () => {
    const ok = await run('server', 'check', 'connection');
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(
      /^OK Connection OK:connected to .* OK:rtt time .* OK:round trip took .* \| connect_time=[\d.]+s;0\.5000;1\.0000 rtt=/,
    );
    const critical = await run(
      'server',
      'check',
      'connection',
      '--rtt-warning',
      '0ms',
      '--rtt-critical',
      '0ms',
    );
    expect(critical.code).toBe(2);
    expect(critical.stdout).toMatch(/^CRITICAL Connection .*CRITICAL:rtt time/);
  });
});

describe('errors and usage', () => {
  let home: Awaited<ReturnType<typeof slipHome>>;
  beforeAll(async () => {
    home = await slipHome();
  });
  afterAll(() => home.remove());

  it('a server that is not there is one error line and exit 1', async () => {
    const result = await home.run(['-s', 'nats://127.0.0.1:1', 'rtt']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /^slip: error: could not connect to nats:\/\/127\.0\.0\.1:1[^\n]*ECONNREFUSED[^\n]*\n$/,
    );
    const check = await home.run(['-s', 'nats://127.0.0.1:1', 'server', 'check', 'connection']);
    expect(check.code).toBe(2);
    expect(check.stdout).toMatch(/^CRITICAL Connection CRITICAL:connection failed: /);
  });

  it('bad values and unknown commands are refused before connecting', async () => {
    expect(await home.run(['pub', 'x', 'y', '--count', 'abc'])).toEqual({
      code: 1,
      stdout: '',
      stderr: 'slip: error: invalid number "abc" (a whole number of at least 1)\n',
    });
    expect((await home.run(['pub', 'x', '{{Nope}}'])).stderr).toMatch(
      /^slip: error: unknown template field \{\{Nope\}\}/,
    );
    const unknown = await home.run(['bogus']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toBe("slip: error: unknown command 'bogus'\n(add --help for usage)\n");
  });

  it('--help shows the global connection flags and an example', async () => {
    const help = await home.run(['pub', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('-s, --server <urls>');
    expect(help.stdout).toContain('(env: NATS_URL)');
    expect(help.stdout).toContain('$ slip pub orders.new');
  });
});
