import { connect, type NatsConnection } from '@nats-io/transport-node';
import { type RunningNatsServer, startNatsServer } from '@slipstream/test-servers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configServers } from './config-servers.js';

// Subject mappings from one config file, run by nats-server 2.9.10 and by the slipstream-server
// bin alike: the top-level `mappings` of the global account, an account's own, the mapping
// functions and weighted destinations.

const config = `
mappings {
  "orders.*.*": "orders.$2.$1"
  "part.*": "part.{{partition(3,1)}}.{{wildcard(1)}}"
  "split.*": "parts.{{split(1,-)}}"
  "left.*": "halves.{{SplitFromLeft(1,2)}}"
  "weighted": [ { destination: "weighted.a", weight: 60% }, { destination: "weighted.b", weight: "40%" } ]
  "some": [ { destination: "some.mapped", weight: 30 } ]
  "lossy": [ { destination: "lossy.kept", weight: 50% }, { destination: "lossy", weight: 20% } ]
}
authorization { users: [ { user: g, password: pw } ] }
accounts {
  A: {
    users: [ { user: a, password: pw } ]
    maps: { "in.>": "a.in.>" }
  }
  B: { users: [ { user: b, password: pw } ] }
}
`;

describe.each(configServers)('subject mappings in $name', ({ bin }) => {
  let server: RunningNatsServer;
  const open: NatsConnection[] = [];

  beforeAll(async () => {
    server = await startNatsServer({ bin, config });
  });
  afterAll(async () => {
    await Promise.all(open.map((nc) => nc.close()));
    await server?.stop();
  });

  async function client(user: string) {
    const nc = await connect({ servers: server.url, reconnect: false, user, pass: 'pw' });
    open.push(nc);
    return nc;
  }

  /** The subjects a subscriber to `>` of `user`'s account receives for these publishes. */
  async function delivered(user: string, subjects: string[]) {
    const nc = await client(user);
    const seen: string[] = [];
    const sub = nc.subscribe('>', {
      callback: (_e, m) => {
        seen.push(m.subject);
      },
    });
    await nc.flush();
    for (const subject of subjects) nc.publish(subject, 'x');
    await nc.flush();
    // The subscriber is the publisher: its flush comes back after every delivery.
    sub.unsubscribe();
    return seen;
  }

  it('maps a publish before routing, wildcards and mapping functions in place', async () => {
    expect(
      await delivered('g', [
        'orders.eu.42',
        'part.a',
        'part.b',
        'part.c',
        'split.x-y--z',
        'left.abcdef',
        'unmapped',
      ]),
    ).toEqual([
      'orders.42.eu',
      // FNV-1a of the token, modulo 3: what nats-server 2.9.10 computes.
      'part.1.a',
      'part.1.b',
      'part.2.c',
      'parts.x.y.z',
      'halves.ab.cdef',
      'unmapped',
    ]);
  });

  it("applies an account's own mappings in that account only", async () => {
    expect(await delivered('a', ['in.x.y', 'orders.eu.42'])).toEqual(['a.in.x.y', 'orders.eu.42']);
    expect(await delivered('b', ['in.x.y'])).toEqual(['in.x.y']);
  });

  it('shares the publishes of a subject among weighted destinations', async () => {
    const count = async (subject: string) => {
      const seen = await delivered('g', Array(1000).fill(subject));
      const counts: Record<string, number> = {};
      for (const s of seen) counts[s] = (counts[s] ?? 0) + 1;
      return counts;
    };
    // Loose bounds: more than 6 standard deviations (about 15 here) from the expected count.
    const near = (expected: number) => [expected - 100, expected + 100];
    const weighted = await count('weighted');
    expect(Object.keys(weighted).sort()).toEqual(['weighted.a', 'weighted.b']);
    expect(weighted['weighted.a']).toBeGreaterThan(near(600)[0]!);
    expect(weighted['weighted.a']).toBeLessThan(near(600)[1]!);
    expect(weighted['weighted.a']! + weighted['weighted.b']!).toBe(1000);
    // Weights short of 100%: the rest stays on the source subject ...
    const some = await count('some');
    expect(some['some.mapped']).toBeGreaterThan(near(300)[0]!);
    expect(some['some.mapped']).toBeLessThan(near(300)[1]!);
    expect(some['some.mapped']! + some.some!).toBe(1000);
    // ... unless the source is a destination itself: then the rest is dropped.
    const lossy = await count('lossy');
    expect(lossy['lossy.kept']).toBeGreaterThan(near(500)[0]!);
    expect(lossy['lossy.kept']).toBeLessThan(near(500)[1]!);
    expect(lossy.lossy).toBeGreaterThan(near(200)[0]!);
    expect(lossy.lossy).toBeLessThan(near(200)[1]!);
    expect(lossy['lossy.kept']! + lossy.lossy!).toBeLessThan(800 + 100);
  });
});

describe.each(configServers)('mappings $name refuses to start with', ({ bin }) => {
  it.each([
    ['a source wildcard left out of the destination', 'mappings { "a.*.*": "b.$1" }'],
    ['an unknown mapping function', 'mappings { "a.*": "b.{{nosuch(1)}}" }'],
    ['a wildcard index out of range', 'mappings { "a.*": "b.$2" }'],
    [
      'weights over 100%',
      'mappings { a: [ { destination: b, weight: 60% }, { destination: c, weight: 50% } ] }',
    ],
    ['a weight over 100%', 'mappings { a: [ { destination: b, weight: 101% } ] }'],
    ['a destination without a weight', 'mappings { a: [ { destination: b } ] }'],
    ['an invalid account mapping', 'accounts { A: { mappings: { "a.*.*": "b.$1" } } }'],
  ])('%s', async (_what, config) => {
    // nats-server's reasons vary (one case panics while wording its error); ours names the mapping.
    await expect(startNatsServer({ bin, config })).rejects.toThrow(
      bin ? /\bmappings[.:]/ : /exited before/,
    );
  });
});
