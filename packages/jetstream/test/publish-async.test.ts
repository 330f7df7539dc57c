import { TimeoutError } from '@slipstream/client';
import { describe, expect, it } from 'vitest';
import {
  JetStreamApiError,
  JetStreamNotEnabled,
  jetstream,
  type PubAckFuture,
} from '../src/mod.js';
import { memoryStream, streamServers, useJetStreamClients } from './servers.js';

describe.each(streamServers)('publishAsync against $name', (kind) => {
  const { server, clients } = useJetStreamClients(kind);
  const newStream = () => memoryStream(clients.jsm);

  it('keeps at most publishAsyncMaxPending acks in flight; acks come in sequence order', async () => {
    const name = await newStream();
    const js = jetstream(clients.nc, { publishAsyncMaxPending: 256 });
    // what the server sees, from another connection: messages taken in minus acks sent out
    const observer = await server.connect();
    let seenInFlight = 0;
    let maxSeenInFlight = 0;
    observer.subscribe(`${name}.>`, {
      callback: () => {
        maxSeenInFlight = Math.max(maxSeenInFlight, ++seenInFlight);
      },
    });
    observer.subscribe('_INBOX.>', {
      callback: () => {
        seenInFlight--;
      },
    });
    await observer.flush();

    let maxPending = 0;
    const futures: PubAckFuture[] = [];
    const payload = new Uint8Array(128);
    for (let i = 0; i < 10_000; i++) {
      futures.push(await js.publishAsync(`${name}.x`, payload));
      maxPending = Math.max(maxPending, js.publishAsyncPending());
    }
    expect(await js.publishAsyncComplete()).toEqual([]);
    expect(js.publishAsyncPending()).toBe(0);
    await observer.flush();

    expect(maxPending).toBe(256);
    expect(maxSeenInFlight).toBeGreaterThan(1);
    expect(maxSeenInFlight).toBeLessThanOrEqual(256);
    const acks = await Promise.all(futures.map((f) => f.ok));
    expect(acks.map((a) => a.seq)).toEqual(Array.from({ length: 10_000 }, (_, i) => i + 1));
    expect(acks.every((a) => a.stream === name && !a.duplicate)).toBe(true);
    expect((await clients.jsm.streams.info(name)).state.messages).toBe(10_000);
  });

  it('reports a failed expectation on its own message, the others stored', async () => {
    const name = await newStream();
    const js = jetstream(clients.nc, { publishAsyncMaxPending: 64 });
    const futures: PubAckFuture[] = [];
    for (let i = 0; i < 1000; i++) {
      const expect = i === 500 ? { lastSequence: 7 } : undefined;
      futures.push(await js.publishAsync(`${name}.x`, `m${i}`, { expect, msgID: `id-${i}` }));
    }
    const failures = await js.publishAsyncComplete();
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatchObject({ subject: `${name}.x`, index: 500, msgID: 'id-500' });
    expect(failures[0]!.error).toBeInstanceOf(JetStreamApiError);
    expect((failures[0]!.error as JetStreamApiError).apiError()).toMatchObject({
      code: 400,
      err_code: 10071,
    });
    await expect(futures[500]!.ok).rejects.toBe(failures[0]!.error);
    expect((await futures[499]!.ok).seq).toBe(500);
    expect((await futures[501]!.ok).seq).toBe(501);
    expect((await clients.jsm.streams.info(name)).state.messages).toBe(999);
    // the failures are handed out once
    expect(await js.publishAsyncComplete()).toEqual([]);
  });

  it('fails a publish no stream takes with JetStreamNotEnabled (no responders)', async () => {
    const js = jetstream(clients.nc);
    const future = await js.publishAsync('nobody.listens.here', 'x');
    await expect(future.ok).rejects.toBeInstanceOf(JetStreamNotEnabled);
    expect(await js.publishAsyncComplete()).toMatchObject([{ index: 0 }]);
  });

  it('times a missing ack out on its own deadline', async () => {
    const js = jetstream(clients.nc);
    // a subscriber that never answers stands in for a stream that does not ack
    const silent = clients.nc.subscribe('silent.subject');
    const started = Date.now();
    const future = await js.publishAsync('silent.subject', 'x', { timeout: 300 });
    await expect(future.ok).rejects.toBeInstanceOf(TimeoutError);
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    expect(await js.publishAsyncComplete()).toHaveLength(1);
    silent.unsubscribe();
  });
});
