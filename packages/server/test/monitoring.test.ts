import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { RawClient } from './raw-client.js';
import { bothServers, natsServer, ours, type RunningTarget, type Target } from './targets.js';

/**
 * A JSON value reduced to its shape: objects to sorted key → shape, arrays to the merged shape of
 * their elements (nats-server lists subscriptions in Go map order, so no element is "the first").
 */
function shape(value: unknown): unknown {
  if (Array.isArray(value)) {
    if (value.length === 0) return [];
    const shapes = value.map(shape);
    if (shapes.every((s) => s !== null && typeof s === 'object' && !Array.isArray(s))) {
      return [Object.assign({}, ...shapes)];
    }
    return [shapes[0]];
  }
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, shape((value as Record<string, unknown>)[key])]),
    );
  }
  return typeof value;
}

interface Monitored {
  server: RunningTarget;
  subscriber: RawClient;
  get(path: string): Promise<Response>;
  json(path: string): Promise<Record<string, unknown>>;
}

/** A server with one named client holding a queue and a plain subscription, one message delivered. */
async function startMonitored(target: Target): Promise<Monitored> {
  const server = await target.start({ monitoring: true });
  const subscriber = await RawClient.connectAndGreet(server.port);
  await subscriber.send(
    'CONNECT {"verbose":false,"name":"probe","lang":"raw","version":"1.0","protocol":1}\r\nSUB mon.> workers 1\r\nSUB other 2\r\nPUB mon.x 2\r\nhi\r\n',
  );
  await subscriber.sync();
  const get = (path: string) => fetch(`${server.httpUrl}${path}`);
  return {
    server,
    subscriber,
    get,
    json: async (path) => (await (await get(path)).json()) as Record<string, unknown>,
  };
}

describe('monitoring shapes match nats-server 2.9.10', () => {
  let mine: Monitored;
  let reference: Monitored;

  beforeAll(async () => {
    [mine, reference] = await Promise.all([startMonitored(ours), startMonitored(natsServer)]);
  });
  afterAll(async () => {
    for (const side of [mine, reference]) {
      side?.subscriber.close();
      await side?.server.stop();
    }
  });

  it('/varz has every nats-server field with the same types', async () => {
    const a = shape(await mine.json('/varz')) as Record<string, unknown>;
    const b = shape(await reference.json('/varz')) as Record<string, unknown>;
    // We add our own version.
    delete a.slipstream_version;
    // /varz http_req_stats depends on which endpoints each test fetched first.
    delete a.http_req_stats;
    delete b.http_req_stats;
    expect(a).toEqual(b);
  });

  for (const path of ['/connz', '/connz?subs=1', '/connz?subs=detail', '/connz?auth=1']) {
    it(`${path} has nats-server's shape`, async () => {
      expect(shape(await mine.json(path))).toEqual(shape(await reference.json(path)));
    });
  }

  it('/connz reports the client the same way', async () => {
    const pick = (connz: Record<string, unknown>) => {
      const [c] = connz.connections as Record<string, unknown>[];
      return {
        kind: c!.kind,
        type: c!.type,
        name: c!.name,
        lang: c!.lang,
        version: c!.version,
        in_msgs: c!.in_msgs,
        out_msgs: c!.out_msgs,
        in_bytes: c!.in_bytes,
        out_bytes: c!.out_bytes,
        subscriptions: c!.subscriptions,
        subscriptions_list_detail: c!.subscriptions_list_detail,
      };
    };
    const mineConnz = pick(await mine.json('/connz?subs=detail'));
    const referenceConnz = pick(await reference.json('/connz?subs=detail'));
    const withoutCid = (entry: typeof mineConnz) => ({
      ...entry,
      subscriptions_list_detail: (
        entry.subscriptions_list_detail as { cid: number; subject: string }[]
      )
        .map(({ cid: _cid, ...rest }) => rest)
        .sort((a, b) => a.subject.localeCompare(b.subject)),
    });
    expect(withoutCid(mineConnz)).toEqual(withoutCid(referenceConnz));
  });

  it('/subsz?subs=1&test= lists the matching subscriptions like nats-server', async () => {
    const path = '/subsz?subs=1&test=mon.x';
    const a = await mine.json(path);
    const b = await reference.json(path);
    expect(shape(a)).toEqual(shape(b));
    const strip = (list: unknown) =>
      (list as { cid: number }[]).map(({ cid: _c, ...rest }) => rest);
    expect(strip(a.subscriptions_list)).toEqual(strip(b.subscriptions_list));
  });

  it('/subsz alone prints the sublist statistics only, as nats-server 2.9.10 does', async () => {
    expect(Object.keys(await mine.json('/subsz')).sort()).toEqual(
      Object.keys(await reference.json('/subsz')).sort(),
    );
  });

  it('/connz?state=closed keeps closed connections with their reason', async () => {
    for (const side of [mine, reference]) {
      const extra = await RawClient.connectAndGreet(side.server.port);
      await extra.send('CONNECT {"verbose":false,"name":"leaver"}\r\nSUB bye 9\r\n');
      await extra.sync();
      extra.close();
    }
    const closed = async (side: Monitored) => {
      for (let i = 0; i < 100; i++) {
        const connz = await side.json('/connz?state=closed&subs=detail');
        const found = (connz.connections as Record<string, unknown>[]).find(
          (c) => c.name === 'leaver',
        );
        if (found) return found;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      throw new Error('closed connection never listed');
    };
    const [a, b] = await Promise.all([closed(mine), closed(reference)]);
    expect(shape(a)).toEqual(shape(b));
    expect(a.reason).toBe(b.reason);
  });

  for (const path of [
    '/connz?limit=abc',
    '/connz?state=bogus',
    '/connz?sort=foo',
    '/connz?sort=stop',
    '/nope',
    '/connz?cid=999999',
    '/healthz',
  ]) {
    it(`${path} answers with nats-server's status, content type and body`, async () => {
      const [a, b] = await Promise.all([mine.get(path), reference.get(path)]);
      expect(a.status).toBe(b.status);
      expect(a.headers.get('content-type')).toBe(b.headers.get('content-type'));
      const [textA, textB] = await Promise.all([a.text(), b.text()]);
      if (a.headers.get('content-type') === 'application/json') {
        const strip = ({ server_id: _id, now: _now, ...rest }: Record<string, unknown>) => rest;
        expect(strip(JSON.parse(textA))).toEqual(strip(JSON.parse(textB)));
      } else {
        expect(textA).toBe(textB);
      }
    });
  }
});

describe.each(bothServers)('monitoring of $name', (target) => {
  let side: Monitored;
  beforeAll(async () => {
    side = await startMonitored(target);
  });
  afterAll(async () => {
    side.subscriber.close();
    await side.server.stop();
  });

  it('counts traffic in /varz', async () => {
    const varz = await side.json('/varz');
    expect(varz).toMatchObject({ in_msgs: 1, out_msgs: 1, in_bytes: 2, out_bytes: 2 });
    // The harness's port probe is a connection too; a loaded nats-server may not have seen it
    // close yet, so wait for the count to settle on the one client.
    await vi.waitFor(async () => expect((await side.json('/varz')).connections).toBe(1), {
      timeout: 5_000,
    });
  });

  it('pretty-prints JSON with Go escaping', async () => {
    const text = await (await side.get('/connz?subs=1')).text();
    expect(text).toContain('\n  "server_id": ');
    expect(text).toContain('"mon.\\u003e"');
  });

  it('answers /healthz compactly', async () => {
    expect(await (await side.get('/healthz')).text()).toBe('{"status":"ok"}');
  });
});

describe.each(bothServers)('monitoring paging and sorting of $name', (target) => {
  let server: RunningTarget;
  const clients: RawClient[] = [];
  const get = async (path: string) =>
    (await (await fetch(`${server.httpUrl}${path}`)).json()) as Record<string, unknown>;
  const names = (connz: Record<string, unknown>) =>
    (connz.connections as { name: string }[]).map((c) => c.name);

  // Client cN connects N-th with N+1 subscriptions and publishes (N+2) % 4 messages, so ordering
  // by cid, by subscriptions and by messages from the client all differ.
  beforeAll(async () => {
    server = await target.start({ monitoring: true });
    for (let n = 0; n < 4; n++) {
      const client = await RawClient.connectAndGreet(server.port);
      clients.push(client);
      const subs = Array.from({ length: n + 1 }, (_, i) => `SUB c${n}.s${i} ${i + 1}\r\n`);
      const pubs = Array.from({ length: (n + 2) % 4 }, () => 'PUB elsewhere 1\r\nx\r\n');
      await client.send(
        `CONNECT {"verbose":false,"name":"c${n}"}\r\n${subs.join('')}${pubs.join('')}`,
      );
      await client.sync();
    }
  });
  afterAll(async () => {
    for (const client of clients) client.close();
    await server?.stop();
  });

  it('/connz sorts by cid ascending by default and pages with offset and limit', async () => {
    expect(names(await get('/connz'))).toEqual(['c0', 'c1', 'c2', 'c3']);
    const page = await get('/connz?offset=1&limit=2');
    expect(page).toMatchObject({ num_connections: 2, total: 4, offset: 1, limit: 2 });
    expect(names(page)).toEqual(['c1', 'c2']);
    const tail = await get('/connz?offset=3&limit=2');
    expect(tail).toMatchObject({ num_connections: 1, total: 4, offset: 3, limit: 2 });
    expect(names(tail)).toEqual(['c3']);
    const past = await get('/connz?offset=9');
    expect(past).toMatchObject({ num_connections: 0, total: 4, offset: 9 });
    expect(names(past)).toEqual([]);
  });

  it('/connz sort=subs and sort=msgs_from order descending, then page', async () => {
    expect(names(await get('/connz?sort=subs'))).toEqual(['c3', 'c2', 'c1', 'c0']);
    expect(names(await get('/connz?sort=subs&offset=1&limit=2'))).toEqual(['c2', 'c1']);
    expect(names(await get('/connz?sort=msgs_from'))).toEqual(['c1', 'c0', 'c3', 'c2']);
    const page = await get('/connz?sort=msgs_from&limit=1&offset=1');
    expect(page).toMatchObject({ num_connections: 1, total: 4, offset: 1, limit: 1 });
    expect(names(page)).toEqual(['c0']);
  });

  const subjects = (subsz: Record<string, unknown>) =>
    (subsz.subscriptions_list as { subject: string }[]).map((s) => s.subject);

  it('/subsz?subs=1 pages the subscription list with offset and limit', async () => {
    const clientSubjects = Array.from({ length: 4 }, (_, n) =>
      Array.from({ length: n + 1 }, (_, i) => `c${n}.s${i}`),
    ).flat();
    // nats-server counts and lists its internal (system account) subscriptions too.
    const all = await get('/subsz?subs=1');
    const count = all.num_subscriptions as number;
    expect(count).toBeGreaterThanOrEqual(clientSubjects.length);
    expect(subjects(all)).toHaveLength(count);
    expect(subjects(all)).toEqual(expect.arrayContaining(clientSubjects));
    // nats-server lists subscriptions in Go map order, so a page is checked by size and content.
    const page = await get('/subsz?subs=1&offset=3&limit=4');
    expect(page).toMatchObject({ offset: 3, limit: 4 });
    expect(subjects(page)).toHaveLength(4);
    expect(subjects(all)).toEqual(expect.arrayContaining(subjects(page)));
    const tail = await get(`/subsz?subs=1&offset=${count - 2}&limit=4`);
    expect(tail).toMatchObject({ offset: count - 2, limit: 4 });
    expect(subjects(tail)).toHaveLength(2);
  });

  // nats-server 2.9.10 reports the number on the page as `total`, not the number of matches.
  it('/subsz?subs=1 gives as total the number of subscriptions on the page', async () => {
    for (const query of ['', '&offset=3&limit=4', '&limit=2']) {
      const page = await get(`/subsz?subs=1${query}`);
      expect(page.total, query).toBe(subjects(page).length);
    }
  });
});
