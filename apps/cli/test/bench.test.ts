import type { RunningNatsServer } from '@slipstream/test-servers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { slipHome, startJetStreamServer, startOurServer } from './slip.js';

const rate =
  /^(Pub|Sub|Request|JetStream Pub|JetStream Consume) stats: [\d,]+ msgs\/sec ~ [\d.]+ (B|KiB|MiB|GiB)\/sec$/m;

describe('bench', () => {
  let ours: RunningNatsServer;
  let withJetStream: RunningNatsServer;
  let home: Awaited<ReturnType<typeof slipHome>>;

  beforeAll(async () => {
    [ours, withJetStream, home] = await Promise.all([
      startOurServer(),
      startJetStreamServer(),
      slipHome(),
    ]);
  });
  afterAll(async () => {
    await Promise.all([ours?.stop(), withJetStream?.stop(), home?.remove()]);
  });

  it('bench sub receives every message bench pub sends, on each subscriber client', async () => {
    const sub = home.start([
      '-s',
      ours.url,
      '--json',
      'bench',
      'sub',
      'bench.x',
      '--msgs',
      '20000',
      '--clients',
      '2',
    ]);
    await sub.printed('Waiting for 20000 messages on "bench.x" on each of 2 clients');
    const pub = await home.run([
      '-s',
      ours.url,
      'bench',
      'pub',
      'bench.x',
      '--msgs',
      '20000',
      '--size',
      '64',
      '--clients',
      '2',
    ]);
    expect(pub.code).toBe(0);
    expect(pub.stdout).toMatch(rate);
    expect(pub.stdout).toMatch(/^ \[1\] [\d,]+ msgs\/sec \(10,000 msgs\)$/m);
    expect(pub.stdout).toMatch(/^ 20,000 msgs in [\d.]+s$/m);
    const received = await sub.done;
    expect(received.code).toBe(0);
    const result = JSON.parse(received.stdout);
    expect(result).toMatchObject({ kind: 'Sub', msgs: 40_000, bytes: 40_000 * 64 });
    expect(result.clients.map((c: { msgs: number }) => c.msgs)).toEqual([20_000, 20_000]);
    expect(result.msgs_per_sec).toBeGreaterThan(0);
  });

  it('bench request against bench reply gives latency percentiles', async () => {
    const reply = home.start(['-s', ours.url, 'bench', 'reply', 'bench.svc']);
    await reply.printed('Answering requests on "bench.svc"');
    const run = await home.run([
      '-s',
      ours.url,
      'bench',
      'request',
      'bench.svc',
      '--msgs',
      '500',
      '--clients',
      '2',
    ]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(rate);
    expect(run.stdout).toMatch(/│ Latency │ min +│ p50 +│ p90 +│ p99 +│ max +│/);
    const json = JSON.parse(
      (await home.run(['-s', ours.url, '--json', 'bench', 'request', 'bench.svc', '--msgs', '200']))
        .stdout,
    );
    const { min, p50, p90, p99, max } = json.latency_ms;
    expect(json.msgs).toBe(200);
    expect(0 < min && min <= p50 && p50 <= p90 && p90 <= p99 && p99 <= max).toBe(true);
    reply.signal('SIGINT');
    expect((await reply.done).code).toBe(0);
  });

  it('bench js pub stores the messages (creating the stream); bench js consume reads them and removes its consumer', async () => {
    const run = (...args: string[]) => home.run(['-s', withJetStream.url, ...args]);
    const pub = await run(
      'bench',
      'js',
      'pub',
      'bench.js',
      '--create',
      '--msgs',
      '1000',
      '--size',
      '16',
    );
    expect(pub.code).toBe(0);
    expect(pub.stdout).toMatch(rate);
    const info = JSON.parse((await run('--json', 'stream', 'info', 'benchstream')).stdout);
    expect(info.state).toMatchObject({ messages: 1000, last_seq: 1000 });
    const consumed = JSON.parse(
      (await run('--json', 'bench', 'js', 'consume', '--msgs', '1000', '--clients', '2')).stdout,
    );
    expect(consumed).toMatchObject({ kind: 'JetStream Consume', msgs: 1000, bytes: 16_000 });
    expect((await run('consumer', 'ls', 'benchstream')).stderr).toBe(
      'No Consumers defined on stream benchstream\n',
    );
  });
});
