import { headers } from '@nats-io/transport-node';
import { afterEach, describe, expect, it } from 'vitest';
import { NATS_COMPATIBLE_VERSION } from '../src/version.js';
import {
  client,
  collect,
  eventually,
  firstDelivery,
  type LeafTestServer,
  natsServerHub,
  natsServerLeaf,
  ourHub,
  ourLeaf,
  pause,
} from './leafnode-support.js';
import type { OfficialConnection } from './official-connection.js';

const running: LeafTestServer[] = [];
const connections: OfficialConnection[] = [];
afterEach(async () => {
  await Promise.all(connections.splice(0).map((nc) => nc.close().catch(() => undefined)));
  for (const server of running.splice(0).reverse()) await server.stop();
});

async function open(server: LeafTestServer, reconnect = false): Promise<OfficialConnection> {
  const nc = await client(server.url, reconnect);
  connections.push(nc);
  return nc;
}

/** Each pairing the issue asks for: who is the hub, who its leaf. */
const topologies = [
  {
    name: 'our leaf of a nats-server hub',
    hub: () => natsServerHub(),
    leaf: (port: number) => ourLeaf(port),
  },
  {
    name: 'a nats-server leaf of our hub',
    hub: () => ourHub(),
    leaf: (port: number) => natsServerLeaf(port),
  },
  { name: 'our leaf of our hub', hub: () => ourHub(), leaf: (port: number) => ourLeaf(port) },
];

describe.each(topologies)('$name', (topology) => {
  async function pair() {
    const hub = await topology.hub();
    running.push(hub);
    const leaf = await topology.leaf(hub.leafPort!);
    running.push(leaf);
    return { hub, leaf, onHub: await open(hub), onLeaf: await open(leaf) };
  }

  it('carries messages from the leaf to the hub and from the hub to the leaf', async () => {
    const { onHub, onLeaf } = await pair();
    const up = onHub.subscribe('up.>');
    expect((await firstDelivery(onLeaf, 'up.one', up, 'hello')).string()).toBe('hello');
    const down = onLeaf.subscribe('down');
    const msg = await firstDelivery(onHub, 'down', down, 'there');
    expect([msg.subject, msg.string()]).toEqual(['down', 'there']);
  });

  it('answers requests across the connection both ways', async () => {
    const { onHub, onLeaf } = await pair();
    onHub.subscribe('hub.service', { callback: (_, m) => void m.respond(`hub got ${m.string()}`) });
    onLeaf.subscribe('leaf.service', {
      callback: (_, m) => void m.respond(`leaf got ${m.string()}`),
    });
    const fromLeaf = await eventually(() => onLeaf.request('hub.service', 'a', { timeout: 500 }));
    expect(fromLeaf.string()).toBe('hub got a');
    const fromHub = await eventually(() => onHub.request('leaf.service', 'b', { timeout: 500 }));
    expect(fromHub.string()).toBe('leaf got b');
  });

  it('carries headers both ways', async () => {
    const { onHub, onLeaf } = await pair();
    const sent = headers();
    sent.set('X-Trace', 'abc');
    sent.append('X-Trace', 'def');
    const atHub = onHub.subscribe('h.up');
    const atLeaf = onLeaf.subscribe('h.down');
    const probe = async (from: OfficialConnection, subject: string, sub: typeof atHub) => {
      const got = sub[Symbol.asyncIterator]().next();
      const timer = setInterval(() => from.publish(subject, 'body', { headers: sent }), 50);
      try {
        return (await got).value;
      } finally {
        clearInterval(timer);
      }
    };
    for (const msg of [await probe(onLeaf, 'h.up', atHub), await probe(onHub, 'h.down', atLeaf)]) {
      expect(msg.headers?.values('X-Trace')).toEqual(['abc', 'def']);
      expect(msg.string()).toBe('body');
    }
  });

  it('takes back interest when the last subscriber leaves', async () => {
    const { onHub, onLeaf } = await pair();
    const sub = onHub.subscribe('gone', { callback: (_, m) => void m.respond('here') });
    await eventually(() => onLeaf.request('gone', '', { timeout: 500 }));
    sub.unsubscribe();
    await onHub.flush();
    // No responders, once the LS- has crossed: nats-server answers 503 at once.
    await eventually(async () => {
      const error = await onLeaf.request('gone', '', { timeout: 2_000 }).then(
        () => undefined,
        (e: Error) => e,
      );
      expect(String(error?.message)).toMatch(/503|no responders/i);
    });
    const fromLeaf = onLeaf.subscribe('gone.leaf', { callback: (_, m) => void m.respond('here') });
    await eventually(() => onHub.request('gone.leaf', '', { timeout: 500 }));
    fromLeaf.unsubscribe();
    await onLeaf.flush();
    await eventually(async () => {
      const error = await onHub.request('gone.leaf', '', { timeout: 2_000 }).then(
        () => undefined,
        (e: Error) => e,
      );
      expect(String(error?.message)).toMatch(/503|no responders/i);
    });
  });

  it('serves a queue group once per message, locally first, the other side when alone', async () => {
    const { onHub, onLeaf } = await pair();
    const atHub = collect(onHub.subscribe('work', { queue: 'q' }));
    const leafMember = onLeaf.subscribe('work', { queue: 'q' });
    const atLeaf = collect(leafMember);
    const plainAtHub = collect(onHub.subscribe('work'));
    // A message from the leaf while both members are up goes to the leaf's member.
    await eventually(async () => {
      onLeaf.publish('work', 'warm-up');
      await onLeaf.flush();
      await pause(50);
      expect(plainAtHub.length).toBeGreaterThan(0);
    });
    const base = { hub: atHub.length, leaf: atLeaf.length, plain: plainAtHub.length };
    for (let i = 0; i < 20; i++) onLeaf.publish('work', `a${i}`);
    await onLeaf.flush();
    await eventually(() => expect(plainAtHub.length - base.plain).toBe(20));
    expect(atLeaf.length - base.leaf).toBe(20);
    expect(atHub.length).toBe(base.hub);
    // From the hub, its own member takes everything.
    for (let i = 0; i < 20; i++) onHub.publish('work', `b${i}`);
    await onHub.flush();
    await eventually(() => expect(atHub.length - base.hub).toBe(20));
    // With the leaf's member gone, the leaf's messages cross to the hub's, each once.
    leafMember.unsubscribe();
    await onLeaf.flush();
    await pause(200);
    const before = atHub.length;
    for (let i = 0; i < 20; i++) onLeaf.publish('work', `c${i}`);
    await onLeaf.flush();
    await eventually(() => expect(atHub.length - before).toBe(20));
    await pause(100);
    expect(atHub.length - before).toBe(20);
    expect(new Set(atHub.map((m) => m.string())).size).toBe(atHub.length);
  });

  it('restores the leaf side subscriptions after the hub restarts mid-traffic', async () => {
    const { hub, onLeaf } = await pair();
    const got = collect(onLeaf.subscribe('ticks'));
    const publisher = await open(hub, true);
    await eventually(async () => {
      publisher.publish('ticks', 'before');
      await pause(50);
      expect(got.length).toBeGreaterThan(0);
    });
    let n = 0;
    const timer = setInterval(() => {
      if (!publisher.isClosed()) publisher.publish('ticks', `t${n++}`);
    }, 20);
    try {
      await hub.restart();
      const seen = got.length;
      await eventually(() => expect(got.length).toBeGreaterThan(seen + 5), 15_000);
    } finally {
      clearInterval(timer);
    }
  });
});

describe('subject mappings across a leaf connection', () => {
  it("maps what a nats-server leaf publishes with our hub's mappings", async () => {
    const hub = await ourHub(undefined, { mappings: { 'old.*': 'new.$1' } });
    running.push(hub);
    const leaf = await natsServerLeaf(hub.leafPort!);
    running.push(leaf);
    const onHub = await open(hub);
    const onLeaf = await open(leaf);
    // Nobody subscribes to old.* anywhere: the hub announced the mapping's source.
    const mapped = onHub.subscribe('new.*');
    const msg = await firstDelivery(onLeaf, 'old.1', mapped, 'remapped');
    expect([msg.subject, msg.string()]).toEqual(['new.1', 'remapped']);
  });
});

describe('queue weights across leaf connections', () => {
  it('our hub shares a group between two leaves by the members each announced', async () => {
    const hub = await ourHub();
    running.push(hub);
    const [big, small] = [await natsServerLeaf(hub.leafPort!), await natsServerLeaf(hub.leafPort!)];
    running.push(big, small);
    const onBig = await open(big);
    const onSmall = await open(small);
    const onHub = await open(hub);
    const atBig = [0, 1, 2].map(() => collect(onBig.subscribe('jobs', { queue: 'workers' })));
    const atSmall = collect(onSmall.subscribe('jobs', { queue: 'workers' }));
    await onBig.flush();
    await onSmall.flush();
    const total = () => atBig.reduce((n, got) => n + got.length, 0) + atSmall.length;
    // Until both leaves' interest (weights 3 and 1) has reached the hub.
    await eventually(async () => {
      onHub.publish('jobs', 'warm-up');
      await onHub.flush();
      await pause(20);
      expect(atSmall.length).toBeGreaterThan(0);
      expect(atBig.some((got) => got.length > 0)).toBe(true);
    });
    const before = { all: total(), small: atSmall.length };
    for (let i = 0; i < 400; i++) onHub.publish('jobs', `j${i}`);
    await onHub.flush();
    await eventually(() => expect(total() - before.all).toBe(400));
    const toSmall = atSmall.length - before.small;
    // About a quarter: 100 expected, about 9 either way (uniform draws would give about 200).
    expect(toSmall).toBeGreaterThan(40);
    expect(toSmall).toBeLessThan(160);
  });
});

describe('deny_imports and deny_exports of a remote', () => {
  it.each([
    { name: 'nats-server hub', hub: () => natsServerHub() },
    { name: 'our hub', hub: () => ourHub() },
  ])('our leaf keeps its denied subjects on its side with a $name', async ({ hub: start }) => {
    const hub = await start();
    running.push(hub);
    const leaf = await ourLeaf(hub.leafPort!, {
      denyImports: ['secret.>'],
      denyExports: ['private.>'],
    });
    running.push(leaf);
    const onHub = await open(hub);
    const onLeaf = await open(leaf);
    // Out: private.* stays here, public.* crosses.
    const privateAtHub = collect(onHub.subscribe('private.*'));
    await firstDelivery(onLeaf, 'public.1', onHub.subscribe('public.*'));
    onLeaf.publish('private.1', 'kept');
    // In: the hub does not send secret.*, sends open.*.
    const secretAtLeaf = collect(onLeaf.subscribe('secret.*'));
    onHub.publish('secret.1', 'kept');
    await firstDelivery(onHub, 'open.1', onLeaf.subscribe('open.*'));
    onHub.publish('secret.2', 'kept');
    // Messages after the denied ones arrive, so the denied ones would have by now.
    await firstDelivery(onLeaf, 'public.2', onHub.subscribe('public.2'));
    await firstDelivery(onHub, 'open.2', onLeaf.subscribe('open.2'));
    expect(privateAtHub).toEqual([]);
    expect(secretAtLeaf).toEqual([]);
  });
});

describe('a remote URL with a scheme of its own', () => {
  // nats.c's KeyValueMirrorCrossDomains configures `url: leaf://127.0.0.1:7422`: nats-server
  // dials any scheme's host and port (only ws and wss are told apart).
  it.each([
    { name: 'nats-server', leaf: (port: number) => natsServerLeaf(port, '', 'leaf') },
    { name: 'ours', leaf: (port: number) => ourLeaf(port, { urls: [`leaf://127.0.0.1:${port}`] }) },
  ])('is dialled as a leaf node URL by $name', async ({ leaf: start }) => {
    const hub = await natsServerHub();
    running.push(hub);
    const leaf = await start(hub.leafPort!);
    running.push(leaf);
    const onHub = await open(hub);
    const onLeaf = await open(leaf);
    await firstDelivery(onLeaf, 'up', onHub.subscribe('up'));
  });
});

describe('the CONNECT our leaf sends', () => {
  it('gives the version our INFO advertises', async () => {
    const hub = await natsServerHub();
    running.push(hub);
    const leaf = await ourLeaf(hub.leafPort!);
    running.push(leaf);
    // nats-server -DV traces the CONNECT it receives.
    await eventually(() => expect(hub.output()).toMatch(/<<- \[CONNECT \{[^\n]*"server_id"/));
    const connect = /<<- \[CONNECT (\{[^\n]*\})\]/.exec(hub.output())![1]!;
    expect(JSON.parse(connect).version).toBe(NATS_COMPATIBLE_VERSION);
  });
});
