import { connect as tcpConnect } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Connection, type ConnectOptions, officialClients } from './support/clients.js';
import { bothServers, type TestServer } from './support/servers.js';
import { collect, eventually } from './support/wait.js';

// Every expectation here holds for nats-server 2.9.10 as well, so each runs against both servers.
describe.each(officialClients)('$name', (client) => {
  describe.each(bothServers)('against $name', (kind) => {
    let server: TestServer;
    const open: Connection[] = [];
    const connect = async (options: Partial<ConnectOptions> = {}) => {
      const nc = await client.connect({ servers: server.url, reconnect: false, ...options });
      open.push(nc);
      return nc;
    };

    beforeAll(async () => {
      server = await kind.start();
    });
    afterEach(async () => {
      await Promise.all(open.splice(0).map((nc) => (nc.isClosed() ? undefined : nc.close())));
    });
    afterAll(async () => {
      await server?.stop();
    });

    it('delivers published messages to a subscriber in order', async () => {
      const sub = await connect();
      const pub = await connect();
      const got = collect(sub.subscribe('greet', { max: 3 }));
      await sub.flush();
      for (const text of ['one', 'two', 'three']) pub.publish('greet', text);
      await got.done;
      expect(got.items.map((m) => [m.subject, m.string()])).toEqual([
        ['greet', 'one'],
        ['greet', 'two'],
        ['greet', 'three'],
      ]);
    });

    it('matches * and > wildcards', async () => {
      const nc = await connect();
      const subjectsFor = (pattern: string) => {
        const seen: string[] = [];
        nc.subscribe(pattern, { callback: (_err, msg) => seen.push(msg.subject) });
        return seen;
      };
      const star = subjectsFor('orders.*');
      const tail = subjectsFor('orders.>');
      const middle = subjectsFor('*.eu.created');
      const done = subjectsFor('done');
      await nc.flush();
      for (const subject of [
        'orders.new',
        'orders.eu.created',
        'users.eu.created',
        'orders',
        'done',
      ]) {
        nc.publish(subject);
      }
      await eventually('the closing message', () => done.length === 1);
      expect(star).toEqual(['orders.new']);
      expect(tail).toEqual(['orders.new', 'orders.eu.created']);
      expect(middle).toEqual(['orders.eu.created', 'users.eu.created']);
    });

    it('gives each message to exactly one queue member, and to every plain subscriber', async () => {
      const total = 300;
      const members = await Promise.all([connect(), connect(), connect()]);
      const received = members.map(() => [] as string[]);
      members.forEach((nc, i) => {
        nc.subscribe('jobs', {
          queue: 'workers',
          callback: (_e, m) => received[i]!.push(m.string()),
        });
      });
      const watcher = await connect();
      const all: string[] = [];
      watcher.subscribe('jobs', { callback: (_e, m) => all.push(m.string()) });
      await Promise.all([...members, watcher].map((nc) => nc.flush()));

      const pub = await connect();
      for (let i = 0; i < total; i++) pub.publish('jobs', String(i));
      await pub.flush();
      await eventually('every job', () => all.length === total && received.flat().length >= total);
      await Promise.all(members.map((nc) => nc.flush()));

      const delivered = received.flat();
      expect(delivered).toHaveLength(total);
      expect(new Set(delivered).size).toBe(total);
      for (const share of received) expect(share.length).toBeGreaterThan(0);
      expect(all).toHaveLength(total);
    });

    it('answers requests through a responder', async () => {
      const responder = await connect();
      responder.subscribe('echo', { callback: (_e, m) => m.respond(`re: ${m.string()}`) });
      await responder.flush();
      const requester = await connect();
      const replies = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          requester.request('echo', `q${i}`, { timeout: 10_000 }),
        ),
      );
      expect(replies.map((m) => m.string())).toEqual(
        Array.from({ length: 50 }, (_, i) => `re: q${i}`),
      );
    });

    it('fails a request at once when nobody listens (no responders)', async () => {
      const nc = await connect();
      const outcome = await nc.request('nobody.home', 'hi', { timeout: 10_000 }).then(
        () => 'answered',
        (error: unknown) => error,
      );
      expect(client.isNoResponders(outcome)).toBe(true);
    });

    it('carries headers, including repeated values', async () => {
      const nc = await connect();
      const got = collect(nc.subscribe('with.headers', { max: 1 }));
      await nc.flush();
      const h = client.headers();
      h.set('X-Trace', 'abc-123');
      h.append('X-Multi', 'one');
      h.append('X-Multi', 'two');
      nc.publish('with.headers', 'body', { headers: h });
      await got.done;
      const msg = got.items[0]!;
      expect(msg.string()).toBe('body');
      expect(msg.headers?.get('X-Trace')).toBe('abc-123');
      expect(msg.headers?.values('X-Multi')).toEqual(['one', 'two']);
    });

    it('passes headers through request and reply', async () => {
      const responder = await connect();
      responder.subscribe('hdr.echo', {
        callback: (_e, m) => {
          const h = client.headers();
          h.set('X-Seen', m.headers?.get('X-Asked') ?? 'none');
          m.respond('ok', { headers: h });
        },
      });
      await responder.flush();
      const requester = await connect();
      const h = client.headers();
      h.set('X-Asked', 'yes');
      const reply = await requester.request('hdr.echo', '', { timeout: 10_000, headers: h });
      expect(reply.headers?.get('X-Seen')).toBe('yes');
    });

    it('drains: messages already sent are processed before the connection closes', async () => {
      const total = 1000;
      const consumer = await connect();
      let processed = 0;
      consumer.subscribe('drain.me', { callback: () => processed++ });
      await consumer.flush();
      const pub = await connect();
      for (let i = 0; i < total; i++) pub.publish('drain.me', 'x');
      await pub.flush();
      await consumer.drain();
      expect(processed).toBe(total);
      expect(consumer.isClosed()).toBe(true);
    });

    it('does not echo a connection its own messages when echo is off', async () => {
      const quiet = await connect({ noEcho: true });
      const other = await connect();
      let toSelf = 0;
      let toOther = 0;
      quiet.subscribe('talk', { callback: () => toSelf++ });
      other.subscribe('talk', { callback: () => toOther++ });
      await Promise.all([quiet.flush(), other.flush()]);
      quiet.publish('talk', 'from quiet');
      await quiet.flush();
      await eventually('the other subscriber', () => toOther === 1);
      await quiet.flush();
      expect(toSelf).toBe(0);
      other.publish('talk', 'from other');
      await eventually('the message from the other connection', () => toSelf === 1);
      expect(toOther).toBe(2);
    });
  });
});

describe.each(officialClients)('$name: max_payload', (client) => {
  describe.each(bothServers)('against $name', (kind) => {
    let server: TestServer;
    beforeAll(async () => {
      server = await kind.start({ maxPayload: 1024 });
    });
    afterAll(async () => {
      await server?.stop();
    });

    it('advertises max_payload and refuses a larger publish', async () => {
      const nc = await client.connect({ servers: server.url, reconnect: false });
      try {
        expect(nc.info?.max_payload).toBe(1024);
        const got = collect(nc.subscribe('big', { max: 1 }));
        let error: unknown;
        try {
          nc.publish('big', new Uint8Array(2048));
        } catch (e) {
          error = e;
        }
        expect(client.isMaxPayload(error)).toBe(true);
        nc.publish('big', new Uint8Array(1024));
        await got.done;
        expect(got.items[0]!.data.length).toBe(1024);
      } finally {
        await nc.close();
      }
    });

    it('cuts off a raw client that publishes past max_payload, and delivers nothing of it', async () => {
      const nc = await client.connect({ servers: server.url, reconnect: false });
      try {
        let delivered = 0;
        nc.subscribe('big', { callback: () => delivered++ });
        await nc.flush();
        const { hostname, port } = new URL(server.url);
        const reply = await new Promise<string>((resolve) => {
          let text = '';
          const socket = tcpConnect(Number(port), hostname);
          socket.on('data', (chunk) => {
            text += chunk;
          });
          socket.on('error', () => {});
          socket.on('close', () => resolve(text));
          socket.write(`CONNECT {"verbose":false}\r\nPUB big 2048\r\n${'x'.repeat(2048)}\r\n`);
        });
        expect(reply).toContain("-ERR 'Maximum Payload Violation'\r\n");
        await nc.flush();
        expect(delivered).toBe(0);
      } finally {
        await nc.close();
      }
    });
  });
});
