import { describe, expect, it } from 'vitest';
import {
  ClosedConnectionError,
  connect,
  createInbox,
  Empty,
  errors,
  headers,
  InvalidSubjectError,
  MaxPayloadExceededError,
  type Msg,
  NoRespondersError,
  RequestError,
  type RequestManyOptions,
  RequestStrategy,
  SlowConsumerError,
  TimeoutError,
} from '../src/node.js';
import { connectedSuite, serverKinds, waitFor } from './servers.js';

describe.each(serverKinds)('core client against $name', (kind) => {
  const suite = connectedSuite(kind);

  it('connects and exposes the server INFO', () => {
    expect(suite.nc.info?.max_payload).toBeGreaterThan(0);
    expect(suite.nc.getServer()).toBe(suite.server.url.replace('nats://', ''));
    expect(suite.nc.isClosed()).toBe(false);
  });

  it('delivers to a callback subscription', async () => {
    const subject = createInbox();
    const got: string[] = [];
    const sub = suite.nc.subscribe(subject, {
      callback: (_err, msg) => void got.push(msg.string()),
    });
    for (let i = 0; i < 5; i++) suite.nc.publish(subject, `m${i}`);
    await suite.nc.flush();
    expect(got).toEqual(['m0', 'm1', 'm2', 'm3', 'm4']);
    expect(sub.getReceived()).toBe(5);
    sub.unsubscribe();
    expect(sub.isClosed()).toBe(true);
  });

  it('decodes text payloads as UTF-8, short and long', async () => {
    const subject = createInbox();
    const texts = ['é', 'ok', 'grüße aus köln, 東京', 'x'.repeat(100)];
    const got: string[] = [];
    suite.nc.subscribe(subject, { callback: (_err, msg) => void got.push(msg.string()) });
    for (const text of texts) suite.nc.publish(subject, text);
    await suite.nc.flush();
    expect(got).toEqual(texts);
  });

  it('keeps every payload intact when many megabytes are written at once', async () => {
    // The writer hands its buffer to the socket without a copy and reuses it once the socket is
    // done with it: enough bytes to make the socket queue some writes must still arrive unmixed.
    const subject = createInbox();
    const count = 2000;
    const size = 4096;
    const mismatches: number[] = [];
    let received = 0;
    const sub = suite.nc.subscribe(subject, {
      callback: (_err, msg) => {
        const expected = received++ % 251;
        if (msg.data.length !== size || msg.data.some((b) => b !== expected))
          mismatches.push(received);
      },
    });
    await suite.nc.flush();
    const payload = new Uint8Array(size);
    for (let i = 0; i < count; i++) {
      payload.fill(i % 251);
      suite.nc.publish(subject, payload);
    }
    await suite.nc.flush();
    await waitFor(() => received === count, `${count} messages`);
    expect(mismatches).toEqual([]);
    sub.unsubscribe();
  });

  it('delivers to an async iterator and ends at max', async () => {
    const subject = createInbox();
    const sub = suite.nc.subscribe(subject, { max: 3 });
    for (let i = 0; i < 5; i++) suite.nc.publish(subject, new Uint8Array([i]));
    const got: number[] = [];
    for await (const msg of sub) got.push(msg.data[0]!);
    expect(got).toEqual([0, 1, 2]);
    expect(sub.getMax()).toBe(3);
    expect(await sub.closed).toBeUndefined();
  });

  it('breaking out of the loop unsubscribes', async () => {
    const subject = createInbox();
    const sub = suite.nc.subscribe(subject);
    suite.nc.publish(subject, 'one');
    for await (const _ of sub) break;
    expect(sub.isClosed()).toBe(true);
    const before = suite.nc.stats().inMsgs;
    suite.nc.publish(subject, 'two');
    await suite.nc.flush();
    expect(suite.nc.stats().inMsgs).toBe(before);
  });

  it('unsubscribe(max) stops after that many messages', async () => {
    const subject = createInbox();
    const sub = suite.nc.subscribe(subject);
    sub.unsubscribe(2);
    for (let i = 0; i < 4; i++) suite.nc.publish(subject);
    let n = 0;
    for await (const _ of sub) n++;
    expect(n).toBe(2);
  });

  it('spreads a queue group over its members', async () => {
    const subject = createInbox();
    const counts = [0, 0, 0];
    const members = counts.map((_, i) =>
      suite.nc.subscribe(subject, { queue: 'q', callback: () => void counts[i]!++ }),
    );
    // Each message goes to one member picked at random: 900 give each an expected 300, and
    // fewer than 100 for any member is 14 standard deviations away (odds below 1e-40).
    for (let i = 0; i < 900; i++) suite.nc.publish(subject);
    await suite.nc.flush();
    expect(counts.reduce((sum, n) => sum + n)).toBe(900);
    for (const n of counts) expect(n).toBeGreaterThanOrEqual(100);
    for (const member of members) member.unsubscribe();
  });

  it('carries headers both ways, decoded on demand', async () => {
    const subject = createInbox();
    const sub = suite.nc.subscribe(subject, { max: 1 });
    const h = headers();
    h.set('X-Trace', 'abc');
    h.append('X-Multi', '1');
    h.append('X-Multi', '2');
    suite.nc.publish(subject, 'body', { headers: h });
    const got: Array<[string, string | undefined, string[] | undefined]> = [];
    for await (const msg of sub) {
      got.push([msg.string(), msg.headers?.get('X-Trace'), msg.headers?.values('X-Multi')]);
    }
    expect(got).toEqual([['body', 'abc', ['1', '2']]]);
  });

  it('does request/reply over the shared inbox', async () => {
    const subject = createInbox();
    const service = suite.nc.subscribe(subject, {
      callback: (_e, msg) => void msg.respond(`re:${msg.string()}`),
    });
    const replies = await Promise.all(
      [1, 2, 3].map((i) => suite.nc.request(subject, `q${i}`, { timeout: 5000 })),
    );
    expect(replies.map((m) => m.string())).toEqual(['re:q1', 're:q2', 're:q3']);
    const noMux = await suite.nc.request(subject, 'x', { timeout: 5000, noMux: true });
    expect(noMux.string()).toBe('re:x');
    service.unsubscribe();
  });

  it('fails a request with no responders as a typed RequestError', async () => {
    const error = await suite.nc.request(createInbox(), 'x', { timeout: 5000 }).catch((e) => e);
    expect(error).toBeInstanceOf(NoRespondersError);
    expect(error).toBeInstanceOf(RequestError);
    expect(error.isNoResponders()).toBe(true);
    expect(error.code).toBe('NO_RESPONDERS');
  });

  it('times out a request nobody answers', async () => {
    const subject = createInbox();
    const silent = suite.nc.subscribe(subject, { callback: () => {} });
    const error = await suite.nc.request(subject, 'x', { timeout: 100 }).catch((e) => e);
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error.code).toBe('TIMEOUT');
    silent.unsubscribe();
  });

  it.each([
    { inbox: 'the shared inbox', noMux: false, replyTokens: 3 },
    { inbox: 'an inbox of its own (noMux)', noMux: true, replyTokens: 2 },
  ])(
    'collects many replies with each requestMany strategy on $inbox',
    async ({ noMux, replyTokens }) => {
      const subject = createInbox();
      const replySubjects = new Set<string>();
      const responders = [1, 2, 3].map((i) =>
        suite.nc.subscribe(subject, {
          callback: (_e, msg) => {
            if (msg.reply) replySubjects.add(msg.reply);
            msg.respond(`r${i}`);
            if (msg.string() === 'sentinel' && i === 3) setTimeout(() => msg.respond(Empty), 50);
          },
        }),
      );
      const collect = async (it: AsyncIterable<Msg>) => {
        const out: string[] = [];
        for await (const m of it) out.push(m.string());
        return out;
      };
      const count = async (payload: string, options: Partial<RequestManyOptions>) =>
        (await collect(await suite.nc.requestMany(subject, payload, { ...options, noMux }))).length;
      expect(
        await count('x', { strategy: RequestStrategy.Count, maxMessages: 2, maxWait: 5000 }),
      ).toBe(2);
      expect(await count('x', { strategy: RequestStrategy.Timer, maxWait: 300 })).toBe(3);
      expect(
        await count('x', { strategy: RequestStrategy.JitterTimer, jitter: 200, maxWait: 5000 }),
      ).toBe(3);
      expect(
        await count('sentinel', { strategy: RequestStrategy.SentinelMsg, maxWait: 5000 }),
      ).toBe(3);
      // The shared inbox names the request in a last token; noMux gives each request a plain inbox.
      expect(replySubjects.size).toBe(4);
      for (const reply of replySubjects) expect(reply.split('.')).toHaveLength(replyTokens);
      for (const r of responders) r.unsubscribe();
      await expect(
        collect(await suite.nc.requestMany(subject, 'x', { maxWait: 5000, noMux })),
      ).rejects.toBeInstanceOf(NoRespondersError);
    },
  );

  it('ends a noMux requestMany with its connection: quietly on drain, with an error on close', async () => {
    const subject = createInbox();
    const silent = suite.nc.subscribe(subject, { callback: () => {} });
    await suite.nc.flush();
    const drained = await connect({ servers: suite.server.url });
    const waitingOnDrain = await drained.requestMany(subject, 'x', {
      noMux: true,
      maxWait: 30_000,
    });
    await drained.drain();
    const seen: Msg[] = [];
    for await (const m of waitingOnDrain) seen.push(m);
    expect(seen).toEqual([]);
    const closed = await connect({ servers: suite.server.url });
    const waitingOnClose = await closed.requestMany(subject, 'x', { noMux: true, maxWait: 30_000 });
    await closed.close();
    const iterate = async () => {
      for await (const _ of waitingOnClose) {
      }
    };
    await expect(iterate()).rejects.toBeInstanceOf(ClosedConnectionError);
    silent.unsubscribe();
  });

  it('fails a subscription that sees nothing within its timeout', async () => {
    const sub = suite.nc.subscribe(createInbox(), { timeout: 100 });
    const iterate = async () => {
      for await (const _ of sub) {
      }
    };
    await expect(iterate()).rejects.toBeInstanceOf(TimeoutError);
    const viaCallback = await new Promise<Error | null>((resolve) =>
      suite.nc.subscribe(createInbox(), { timeout: 100, callback: (err) => resolve(err) }),
    );
    expect(viaCallback).toBeInstanceOf(errors.TimeoutError);
  });

  it('bounds an unread iterator, drops the overflow and reports a slow consumer', async () => {
    const other = await connect({ servers: suite.server.url });
    const events: string[] = [];
    void (async () => {
      for await (const s of other.status()) events.push(s.type);
    })();
    const subject = createInbox();
    const sub = other.subscribe(subject, { maxPendingMsgs: 10 });
    await other.flush();
    for (let i = 0; i < 100; i++) suite.nc.publish(subject, String(i));
    await suite.nc.flush();
    await other.flush();
    expect(sub.getPending()).toBe(10);
    expect(sub.getDropped()).toBe(90);
    expect(sub.getReceived()).toBe(100);
    const got: string[] = [];
    for await (const m of sub) {
      got.push(m.string());
      if (got.length === 10) break;
    }
    expect(got[0]).toBe('0');
    expect(events).toContain('slowConsumer');
    await other.close();
  });

  it('checks subjects and payload size before writing anything', async () => {
    const before = suite.nc.stats();
    expect(() => suite.nc.publish('foo..bar')).toThrow(InvalidSubjectError);
    expect(() => suite.nc.publish('foo', '', { reply: 'bad reply' })).toThrow(InvalidSubjectError);
    expect(() => suite.nc.publish('foo.*')).toThrow(InvalidSubjectError);
    expect(() => suite.nc.subscribe('foo.>.bar')).toThrow(InvalidSubjectError);
    expect(() => suite.nc.publish('foo', 42 as never)).toThrow(errors.InvalidArgumentError);
    expect(() => suite.nc.subscribe('foo', { max: -1 })).toThrow(errors.InvalidArgumentError);
    const max = suite.nc.info!.max_payload;
    expect(() => suite.nc.publish('big', new Uint8Array(max + 1))).toThrow(MaxPayloadExceededError);
    const h = headers();
    h.set('k', 'v');
    // The payload alone fits; with its headers it does not.
    expect(() => suite.nc.publish('big', new Uint8Array(max - 4), { headers: h })).toThrow(
      MaxPayloadExceededError,
    );
    // Nothing went out and the connection is healthy.
    expect(suite.nc.stats().outMsgs).toBe(before.outMsgs);
    expect(suite.nc.stats().outBytes).toBe(before.outBytes);
    await suite.nc.flush();
    expect(suite.nc.isClosed()).toBe(false);
  });

  it('runs async callbacks without holding up the reader', async () => {
    const subject = createInbox();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const started: string[] = [];
    const finished: string[] = [];
    const sub = suite.nc.subscribe(subject, {
      callback: async (_e, m) => {
        started.push(m.string());
        await gate;
        finished.push(m.string());
      },
    });
    for (let i = 0; i < 5; i++) suite.nc.publish(subject, String(i));
    await suite.nc.flush();
    // Every message was handed over while the first callback is still waiting.
    expect(started).toEqual(['0', '1', '2', '3', '4']);
    expect(finished).toEqual([]);
    release();
    await waitFor(() => finished.length === 5, 'callbacks to finish');
    sub.unsubscribe();
  });

  it('reports a failing callback as an error status and keeps delivering', async () => {
    const other = await connect({ servers: suite.server.url });
    const errorsSeen: Error[] = [];
    void (async () => {
      for await (const s of other.status()) if (s.type === 'error') errorsSeen.push(s.error);
    })();
    const subject = createInbox();
    let calls = 0;
    other.subscribe(subject, {
      callback: (_e, m) => {
        calls++;
        if (m.string() === 'sync') throw new Error('sync failure');
        if (m.string() === 'async') return Promise.reject(new Error('async failure'));
      },
    });
    other.publish(subject, 'sync');
    other.publish(subject, 'async');
    other.publish(subject, 'fine');
    await other.flush();
    await waitFor(() => errorsSeen.length === 2, 'two error statuses');
    expect(calls).toBe(3);
    expect(errorsSeen.map((e) => e.message).sort()).toEqual(['async failure', 'sync failure']);
    await other.close();
  });

  it('bounds an unread iterator by bytes too, and takes messages again once read', async () => {
    const other = await connect({ servers: suite.server.url });
    const slow: Error[] = [];
    void (async () => {
      for await (const s of other.status()) if (s.type === 'slowConsumer') slow.push(s.error);
    })();
    const subject = createInbox();
    const sub = other.subscribe(subject, { maxPendingBytes: 100 });
    await other.flush();
    const payload = 'x'.repeat(30);
    for (let i = 0; i < 10; i++) suite.nc.publish(subject, payload);
    await suite.nc.flush();
    await other.flush();
    expect(sub.getPending()).toBe(3); // 90 bytes; a fourth would pass 100
    expect(sub.getDropped()).toBe(7);
    // The status iterator hands the event on a few microtasks later than flush() resolves when
    // the dropped messages and the PONG arrive in one socket read.
    await waitFor(() => slow.length > 0, 'the slowConsumer status');
    expect(slow).toHaveLength(1);
    expect(slow[0]).toBeInstanceOf(SlowConsumerError);
    expect((slow[0] as SlowConsumerError).code).toBe('SLOW_CONSUMER');
    const reader = sub[Symbol.asyncIterator]();
    for (let i = 0; i < 3; i++) await reader.next();
    suite.nc.publish(subject, payload);
    await suite.nc.flush();
    await other.flush();
    expect(sub.getPending()).toBe(1);
    expect(sub.getDropped()).toBe(7);
    await other.close();
  });

  it('drains one subscription: what is in flight is delivered, the connection stays open', async () => {
    const subject = createInbox();
    const sub = suite.nc.subscribe(subject);
    await suite.nc.flush();
    for (let i = 0; i < 20; i++) suite.nc.publish(subject, String(i));
    const seen: string[] = [];
    const reading = (async () => {
      for await (const m of sub) seen.push(m.string());
    })();
    await sub.drain();
    await reading;
    expect(seen).toHaveLength(20);
    expect(sub.isClosed()).toBe(true);
    suite.nc.publish(subject, 'late');
    await suite.nc.flush();
    expect(sub.getReceived()).toBe(20);
    expect(suite.nc.isClosed()).toBe(false);
    // As in nats.js: draining a closed subscription, or on a closed connection, is refused.
    await expect(sub.drain()).rejects.toBeInstanceOf(errors.InvalidOperationError);
    const other = await connect({ servers: suite.server.url });
    const orphan = other.subscribe(createInbox());
    await other.close();
    await expect(orphan.drain()).rejects.toBeInstanceOf(ClosedConnectionError);
  });

  it('counts messages and bytes', async () => {
    const before = suite.nc.stats();
    const subject = createInbox();
    const sub = suite.nc.subscribe(subject, { callback: () => {} });
    suite.nc.publish(subject, 'hello');
    await suite.nc.flush();
    const after = suite.nc.stats();
    expect(after.outMsgs - before.outMsgs).toBe(1);
    expect(after.outBytes - before.outBytes).toBe(5);
    expect(after.inMsgs - before.inMsgs).toBe(1);
    expect(after.inBytes - before.inBytes).toBe(5);
    sub.unsubscribe();
  });

  it('measures rtt as one round trip through the server', async () => {
    const subject = createInbox();
    let delivered = 0;
    const sub = suite.nc.subscribe(subject, { callback: () => void delivered++ });
    for (let i = 0; i < 100; i++) suite.nc.publish(subject, 'x');
    const before = performance.now();
    const rtt = await suite.nc.rtt();
    const elapsed = performance.now() - before;
    // The server answers the ping only after what was sent before it, so all came back first.
    expect(delivered).toBe(100);
    expect(rtt).toBeGreaterThan(0);
    expect(rtt).toBeLessThanOrEqual(elapsed);
    expect(rtt).toBeLessThan(5_000);
    sub.unsubscribe();
  });

  it('does not echo to itself with noEcho', async () => {
    const quiet = await connect({ servers: suite.server.url, noEcho: true });
    const subject = createInbox();
    let own = 0;
    quiet.subscribe(subject, { callback: () => void own++ });
    let fromOthers = 0;
    suite.nc.subscribe(subject, { callback: () => void fromOthers++ });
    await quiet.flush();
    await suite.nc.flush();
    quiet.publish(subject);
    suite.nc.publish(subject);
    await quiet.flush();
    await suite.nc.flush();
    await quiet.flush();
    expect(own).toBe(1);
    expect(fromOthers).toBe(2);
    await quiet.close();
  });

  it('drains: pending messages are processed, then the connection closes', async () => {
    const other = await connect({ servers: suite.server.url });
    const subject = createInbox();
    const sub = other.subscribe(subject);
    await other.flush();
    for (let i = 0; i < 50; i++) suite.nc.publish(subject, String(i));
    await suite.nc.flush();
    await other.flush();
    const seen: string[] = [];
    const reading = (async () => {
      for await (const m of sub) seen.push(m.string());
    })();
    await other.drain();
    await reading;
    expect(seen).toHaveLength(50);
    expect(other.isClosed()).toBe(true);
    expect(await other.closed()).toBeUndefined();
  });

  it('refuses new subscriptions and requests while draining', async () => {
    const other = await connect({ servers: suite.server.url });
    other.subscribe(createInbox());
    const draining = other.drain();
    expect(other.isDraining()).toBe(true);
    expect(() => other.subscribe(createInbox())).toThrow(errors.DrainingConnectionError);
    await expect(other.request('x')).rejects.toBeInstanceOf(errors.DrainingConnectionError);
    await expect(other.drain()).rejects.toBeInstanceOf(errors.DrainingConnectionError);
    await draining;
    expect(other.isClosed()).toBe(true);
  });

  it('publishes while subscriptions drain, refuses publishing once they are drained', async () => {
    const other = await connect({ servers: suite.server.url });
    const subject = createInbox();
    const sub = other.subscribe(subject);
    await other.flush();
    const answer = suite.nc.request(subject, 'question', { timeout: 5000 });
    await waitFor(() => sub.getReceived() === 1, 'the request to reach the responder');
    const draining = other.drain();
    // The request is delivered but not yet handled: the subscription is still draining.
    for await (const m of sub) m.respond('answered while draining');
    // Every subscription is drained now; the final flush waits on the network, so within these
    // microtasks the connection cannot have closed yet and the refusal must show.
    let refusal: unknown;
    for (let i = 0; i < 100 && refusal === undefined; i++) {
      await Promise.resolve();
      try {
        other.publish(subject, 'too late');
      } catch (error) {
        refusal = error;
      }
    }
    expect(refusal).toBeInstanceOf(errors.DrainingConnectionError);
    await draining;
    expect((await answer).string()).toBe('answered while draining');
    expect(() => other.publish(subject)).toThrow(ClosedConnectionError);
  });

  it('close ends iterators and rejects later calls with ClosedConnectionError', async () => {
    const other = await connect({ servers: suite.server.url });
    const sub = other.subscribe(createInbox());
    const statuses: string[] = [];
    const watching = (async () => {
      for await (const s of other.status()) statuses.push(s.type);
    })();
    await other.close();
    for await (const _ of sub) {
    }
    await watching;
    expect(statuses).toEqual(['close']);
    expect(() => other.publish('x')).toThrow(ClosedConnectionError);
    await expect(other.request('x')).rejects.toBeInstanceOf(ClosedConnectionError);
    await expect(other.flush()).rejects.toBeInstanceOf(ClosedConnectionError);
  });

  it('rejects connect with a ConnectionError when nothing listens', async () => {
    const error = await connect({ servers: '127.0.0.1:1', timeout: 2000 }).catch((e) => e);
    expect(error).toBeInstanceOf(errors.ConnectionError);
  });
});
