import { headers, type NatsConnection, TimeoutError } from '@slipstream/client';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  type JetStreamClient,
  type JetStreamManager,
  JetStreamNotEnabled,
  jetstream,
  jetstreamManager,
  StorageType,
} from '../src/mod.js';
import { expectApiError } from './api-errors.js';
import { streamServers, uniqueStream, useJetStreamServer } from './servers.js';

describe.each(streamServers)('publish against $name', (kind) => {
  const server = useJetStreamServer(kind);
  let nc: NatsConnection;
  let jsm: JetStreamManager;
  let js: JetStreamClient;
  beforeAll(async () => {
    nc = await server.connect();
    jsm = await jetstreamManager(nc);
    js = jetstream(nc);
  });

  async function newStream() {
    const name = uniqueStream();
    await jsm.streams.add({ name, subjects: [`${name}.>`], storage: StorageType.Memory });
    return name;
  }

  it('resolves with the PubAck and stores payload and headers', async () => {
    const name = await newStream();
    const h = headers();
    h.set('Order-Id', '42');
    expect(await js.publish(`${name}.a`, 'one', { headers: h })).toEqual({
      stream: name,
      seq: 1,
      duplicate: false,
    });
    expect(await js.publish(`${name}.b`)).toEqual({ stream: name, seq: 2, duplicate: false });
    const stored = await jsm.streams.getMessage(name, { seq: 1 });
    expect(stored!.string()).toBe('one');
    expect(stored!.header.get('Order-Id')).toBe('42');
    expect(h.has('Nats-Msg-Id')).toBe(false);
  });

  it('drops a repeated msgID within the duplicate window: duplicate true, original seq', async () => {
    const name = await newStream();
    expect(await js.publish(`${name}.a`, 'x', { msgID: 'm-1' })).toEqual({
      stream: name,
      seq: 1,
      duplicate: false,
    });
    expect(await js.publish(`${name}.a`, 'y', { msgID: 'm-1' })).toEqual({
      stream: name,
      seq: 1,
      duplicate: true,
    });
    expect((await js.publish(`${name}.a`, 'z', { msgID: 'm-2' })).seq).toBe(2);
    expect((await jsm.streams.info(name)).state.messages).toBe(2);
    expect((await jsm.streams.getMessage(name, { seq: 1 }))!.header.get('Nats-Msg-Id')).toBe('m-1');
  });

  describe('expectations', () => {
    it('stores when they hold', async () => {
      const name = await newStream();
      await js.publish(`${name}.a`, '1', { msgID: 'first' });
      const ack = await js.publish(`${name}.a`, '2', {
        expect: {
          streamName: name,
          lastSequence: 1,
          lastSubjectSequence: 1,
          lastMsgID: 'first',
        },
      });
      expect(ack.seq).toBe(2);
      const fresh = await js.publish(`${name}.b`, '3', { expect: { lastSubjectSequence: 0 } });
      expect(fresh.seq).toBe(3);
    });

    it('fails each with its err_code and stores nothing', async () => {
      const name = await newStream();
      await js.publish(`${name}.a`, '1', { msgID: 'first' });
      const cases: [Parameters<JetStreamClient['publish']>[2], number, number, string][] = [
        [{ expect: { streamName: 'OTHER' } }, 400, 10060, 'expected stream does not match'],
        [{ expect: { lastSequence: 7 } }, 400, 10071, 'wrong last sequence: 1'],
        [{ expect: { lastSubjectSequence: 0 } }, 400, 10071, 'wrong last sequence: 1'],
        [{ expect: { lastMsgID: 'other' } }, 400, 10070, 'wrong last msg ID: first'],
      ];
      for (const [options, status, errCode, message] of cases) {
        const error = await expectApiError(js.publish(`${name}.a`, 'x', options), status, errCode);
        expect(error.message).toBe(message);
      }
      expect((await jsm.streams.info(name)).state.messages).toBe(1);
    });
  });

  it('fails with JetStreamNotEnabled when no stream captures the subject', async () => {
    const error = await js.publish('no.stream.here', 'x').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(JetStreamNotEnabled);
  });

  it('retries on no responders until the stream appears', async () => {
    const name = uniqueStream();
    const published = js.publish(`${name}.a`, 'late', { retries: 5 });
    setTimeout(() => {
      void jsm.streams.add({ name, subjects: [`${name}.>`], storage: StorageType.Memory });
    }, 300);
    expect(await published).toEqual({ stream: name, seq: 1, duplicate: false });
  });

  it('gives up after the given retries', async () => {
    const started = Date.now();
    const error = await js.publish('still.nobody', 'x', { retries: 3 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(JetStreamNotEnabled);
    // two waits between three attempts: 250 ms then 500 ms
    expect(Date.now() - started).toBeGreaterThanOrEqual(700);
  });

  it('times out when something other than a stream holds the request', async () => {
    const silent = nc.subscribe('silent.>');
    const error = await js
      .publish('silent.a', 'x', { timeout: 200, retries: 3 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TimeoutError);
    silent.unsubscribe();
  });
});
