import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
    // We have no system account (yet), and add our own version.
    delete b.system_account;
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
    expect(varz.connections).toBe(1);
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
