import { freePort, startNatsServer } from '@slipstream/test-servers';
import { afterEach, describe, expect, it } from 'vitest';
import {
  connect,
  createInbox,
  type NatsConnection,
  OutboundBufferFullError,
  ReconnectBufferFullError,
  type Status,
} from '../src/node.js';
import { type SuiteServer, serverKinds, waitFor } from './servers.js';

/** Records status event types as they come. */
function watch(nc: NatsConnection): string[] {
  const seen: string[] = [];
  void (async () => {
    for await (const s of nc.status()) seen.push(s.type);
  })();
  return seen;
}

/** The events from the first `first` onwards, with ping/reconnecting runs collapsed. */
function sequence(seen: string[]): string[] {
  return seen
    .filter((t) => t !== 'ping')
    .filter((t, i, all) => t !== 'reconnecting' || all[i - 1] !== 'reconnecting');
}

describe.each(serverKinds)('reconnect against $name (restarted mid-traffic)', (kind) => {
  let server: SuiteServer | undefined;
  const conns: NatsConnection[] = [];
  afterEach(async () => {
    for (const nc of conns.splice(0)) await nc.close();
    await server?.stop();
    server = undefined;
  });

  const open = async (extra = {}) => {
    const nc = await connect({
      servers: server!.url,
      reconnectTimeWait: 50,
      reconnectJitter: 10,
      ...extra,
    });
    conns.push(nc);
    return nc;
  };

  it('buffers publishes while down, resubscribes, and reports disconnect → reconnecting → reconnect', async () => {
    server = await kind.start();
    const nc = await open();
    const statuses = watch(nc);
    const subject = createInbox();
    const got: number[] = [];
    nc.subscribe(subject, { callback: (_e, m) => void got.push(Number(m.string())) });
    for (let i = 0; i < 10; i++) nc.publish(subject, String(i));
    await nc.flush();
    expect(got).toHaveLength(10);

    await server.kill();
    await waitFor(() => statuses.includes('disconnect'), 'disconnect');
    for (let i = 10; i < 20; i++) nc.publish(subject, String(i));
    const flushed = nc.flush(); // waits for the next server
    await server.restart();
    await flushed;
    await waitFor(() => got.length >= 20, 'buffered messages');
    expect(got.slice(10)).toEqual([10, 11, 12, 13, 14, 15, 16, 17, 18, 19]);
    expect(sequence(statuses)).toEqual(['disconnect', 'reconnecting', 'reconnect']);
    expect(nc.stats().reconnects).toBe(1);

    nc.publish(subject, '20');
    await nc.flush();
    expect(got.at(-1)).toBe(20);
  });

  it('keeps traffic flowing across a restart in the middle of a publish loop', async () => {
    server = await kind.start();
    // One connection both publishes and subscribes: it resubscribes before replaying its buffer,
    // so nothing it buffered can miss the subscription (a second client could reconnect later).
    const pub = await open();
    const subject = createInbox();
    const received = new Set<number>();
    pub.subscribe(subject, { callback: (_e, m) => void received.add(Number(m.string())) });
    await pub.flush();
    const pubStatus = watch(pub);
    let sent = 0;
    let sentAfterDisconnect = -1;
    const loop = (async () => {
      for (; sent < 400; sent++) {
        if (sent === 100) {
          await pub.flush(); // the first 100 are confirmed; the kill then lands mid-loop
          void server!.kill();
        }
        if (sentAfterDisconnect < 0 && pubStatus.includes('disconnect')) sentAfterDisconnect = sent;
        if (sent === 300) await server!.restart();
        pub.publish(subject, String(sent));
        await new Promise((r) => setTimeout(r, 1));
      }
    })();
    await loop;
    await pub.flush();
    await waitFor(() => received.has(399), 'the last message');
    // Messages written to the dying socket may be lost; everything published once the client
    // knew it was disconnected must arrive, and so must everything after the restart.
    for (let i = Math.max(sentAfterDisconnect, 0); i < 400; i++)
      expect(received.has(i), `message ${i}`).toBe(true);
    for (let i = 0; i < 100; i++) expect(received.has(i)).toBe(true);
  });

  it('reconnects with the plain jitter on a plain connection', async () => {
    server = await kind.start();
    // A TLS jitter of 10 minutes would stall the reconnect: only the plain one (0) may apply.
    const nc = await open({ reconnectJitter: 0, reconnectJitterTLS: 600_000 });
    const statuses = watch(nc);
    await server.kill();
    await waitFor(() => statuses.includes('disconnect'), 'disconnect');
    await server.restart();
    await waitFor(() => statuses.includes('reconnect'), 'reconnect');
  });

  it('resubscribes with the remaining max count', async () => {
    server = await kind.start();
    const nc = await open();
    const statuses = watch(nc);
    const subject = createInbox();
    const sub = nc.subscribe(subject, { max: 5 });
    nc.publish(subject, 'a');
    nc.publish(subject, 'b');
    await nc.flush();
    await server.kill();
    await waitFor(() => statuses.includes('disconnect'), 'disconnect');
    await server.restart();
    await waitFor(() => statuses.includes('reconnect'), 'reconnect');
    const before = nc.stats().inMsgs;
    for (let i = 0; i < 6; i++) nc.publish(subject, 'c');
    await nc.flush();
    let n = 0;
    for await (const _ of sub) n++;
    expect(n).toBe(5);
    // The server was told the remaining 3, so it sent no more than that.
    expect(nc.stats().inMsgs - before).toBe(3);
  });

  it('bounds the reconnect buffer', async () => {
    server = await kind.start();
    const nc = await open({ reconnectBufSize: 100 });
    const statuses = watch(nc);
    await server.kill();
    await waitFor(() => statuses.includes('disconnect'), 'disconnect');
    nc.publish('x', new Uint8Array(60));
    expect(() => nc.publish('x', new Uint8Array(60))).toThrow(ReconnectBufferFullError);
  });

  it('gives up after maxReconnectAttempts and closes with an error', async () => {
    server = await kind.start();
    const nc = await open({ maxReconnectAttempts: 2 });
    const statuses = watch(nc);
    await server.kill();
    const error = await nc.closed();
    expect(error).toBeInstanceOf(Error);
    await waitFor(() => statuses.includes('close'), 'close status');
    expect(sequence(statuses)).toEqual(['disconnect', 'reconnecting', 'close']);
    expect(statuses.filter((t) => t === 'reconnecting')).toHaveLength(2);
  });

  it('detects a stale connection through missed pings and recovers', async () => {
    const frozen = await kind.startInOwnProcess();
    server = frozen;
    const nc = await open({ pingInterval: 100, maxPingOut: 2, timeout: 500 });
    const events: Status[] = [];
    void (async () => {
      for await (const s of nc.status()) events.push(s);
    })();
    frozen.freeze();
    await waitFor(() => events.some((e) => e.type === 'staleConnection'), 'staleConnection');
    frozen.thaw();
    await waitFor(() => events.some((e) => e.type === 'reconnect'), 'reconnect');
    const types = events.map((e) => e.type).filter((t) => t !== 'ping' && t !== 'reconnecting');
    expect(types.slice(0, 3)).toEqual(['staleConnection', 'disconnect', 'reconnect']);
    await nc.flush();
  });

  it('bounds what waits for a socket that pushes back', async () => {
    const frozen = await kind.startInOwnProcess();
    server = frozen;
    const nc = await open({ outboundBufSize: 2 * 1024 * 1024, pingInterval: 0 });
    frozen.freeze();
    const chunk = new Uint8Array(1024);
    let error: unknown;
    // The kernel and socket buffers fill first; then the client must refuse rather than grow.
    for (let i = 0; i < 200_000 && !error; i++) {
      try {
        nc.publish('bulk', chunk);
      } catch (e) {
        error = e;
      }
      if (i % 256 === 0) await new Promise((r) => setImmediate(r));
    }
    expect(error).toBeInstanceOf(OutboundBufferFullError);
    frozen.thaw();
    await nc.flush();
  });

  it('reports lame duck mode', async (context) => {
    server = await kind.start();
    if (!server.lameDuck) context.skip();
    const nc = await open();
    const statuses = watch(nc);
    await nc.flush();
    server.lameDuck!();
    await waitFor(() => statuses.includes('ldm'), 'ldm');
  });

  it('reconnects on demand with reconnect()', async () => {
    server = await kind.start();
    const nc = await open();
    const statuses = watch(nc);
    const subject = createInbox();
    let n = 0;
    nc.subscribe(subject, { callback: () => void n++ });
    await nc.reconnect();
    await waitFor(() => statuses.includes('reconnect'), 'reconnect');
    expect(sequence(statuses)).toEqual([
      'forceReconnect',
      'disconnect',
      'reconnecting',
      'reconnect',
    ]);
    nc.publish(subject);
    await nc.flush();
    expect(n).toBe(1);
  });
});

describe('first connect against nats-server 2.9.10', () => {
  it('with waitOnFirstConnect, keeps trying until a server appears', async () => {
    const port = await freePort();
    const pending = connect({
      servers: `127.0.0.1:${port}`,
      waitOnFirstConnect: true,
      reconnectTimeWait: 50,
    });
    await new Promise((r) => setTimeout(r, 200));
    const late = await startNatsServer({ port });
    const nc = await pending;
    await nc.flush();
    await nc.close();
    await late.stop();
  });
});
