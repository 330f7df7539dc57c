import { headers, TimeoutError } from '@slipstream/client';
import { describe, expect, it } from 'vitest';
import { type JetStreamClient, JetStreamNotEnabled, StorageType } from '../src/mod.js';
import { expectApiError } from './api-errors.js';
import { memoryStream, streamServers, uniqueStream, useJetStreamClients } from './servers.js';

describe.each(streamServers)('publish against $name', (kind) => {
  const { clients } = useJetStreamClients(kind);

  it('resolves with the PubAck and stores payload and headers', async () => {
    const name = await memoryStream(clients.jsm);
    const h = headers();
    h.set('Order-Id', '42');
    expect(await clients.js.publish(`${name}.a`, 'one', { headers: h })).toEqual({
      stream: name,
      seq: 1,
      duplicate: false,
    });
    expect(await clients.js.publish(`${name}.b`)).toEqual({
      stream: name,
      seq: 2,
      duplicate: false,
    });
    const stored = await clients.jsm.streams.getMessage(name, { seq: 1 });
    expect(stored!.string()).toBe('one');
    expect(stored!.header.get('Order-Id')).toBe('42');
    expect(h.has('Nats-Msg-Id')).toBe(false);
  });

  it('drops a repeated msgID within the duplicate window: duplicate true, original seq', async () => {
    const name = await memoryStream(clients.jsm);
    expect(await clients.js.publish(`${name}.a`, 'x', { msgID: 'm-1' })).toEqual({
      stream: name,
      seq: 1,
      duplicate: false,
    });
    expect(await clients.js.publish(`${name}.a`, 'y', { msgID: 'm-1' })).toEqual({
      stream: name,
      seq: 1,
      duplicate: true,
    });
    expect((await clients.js.publish(`${name}.a`, 'z', { msgID: 'm-2' })).seq).toBe(2);
    expect((await clients.jsm.streams.info(name)).state.messages).toBe(2);
    expect(
      (await clients.jsm.streams.getMessage(name, { seq: 1 }))!.header.get('Nats-Msg-Id'),
    ).toBe('m-1');
  });

  describe('expectations', () => {
    it('stores when they hold', async () => {
      const name = await memoryStream(clients.jsm);
      await clients.js.publish(`${name}.a`, '1', { msgID: 'first' });
      const ack = await clients.js.publish(`${name}.a`, '2', {
        expect: {
          streamName: name,
          lastSequence: 1,
          lastSubjectSequence: 1,
          lastMsgID: 'first',
        },
      });
      expect(ack.seq).toBe(2);
      const fresh = await clients.js.publish(`${name}.b`, '3', {
        expect: { lastSubjectSequence: 0 },
      });
      expect(fresh.seq).toBe(3);
    });

    it('fails each with its err_code and stores nothing', async () => {
      const name = await memoryStream(clients.jsm);
      await clients.js.publish(`${name}.a`, '1', { msgID: 'first' });
      const cases: [Parameters<JetStreamClient['publish']>[2], number, number, string][] = [
        [{ expect: { streamName: 'OTHER' } }, 400, 10060, 'expected stream does not match'],
        [{ expect: { lastSequence: 7 } }, 400, 10071, 'wrong last sequence: 1'],
        [{ expect: { lastSubjectSequence: 0 } }, 400, 10071, 'wrong last sequence: 1'],
        [{ expect: { lastMsgID: 'other' } }, 400, 10070, 'wrong last msg ID: first'],
      ];
      for (const [options, status, errCode, message] of cases) {
        const error = await expectApiError(
          clients.js.publish(`${name}.a`, 'x', options),
          status,
          errCode,
        );
        expect(error.message).toBe(message);
      }
      expect((await clients.jsm.streams.info(name)).state.messages).toBe(1);
    });
  });

  it('fails with JetStreamNotEnabled when no stream captures the subject', async () => {
    const error = await clients.js.publish('no.stream.here', 'x').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(JetStreamNotEnabled);
  });

  it('retries on no responders until the stream appears', async () => {
    const name = uniqueStream();
    const published = clients.js.publish(`${name}.a`, 'late', { retries: 5 });
    setTimeout(() => {
      void clients.jsm.streams.add({ name, subjects: [`${name}.>`], storage: StorageType.Memory });
    }, 300);
    expect(await published).toEqual({ stream: name, seq: 1, duplicate: false });
  });

  it('gives up after the given retries', async () => {
    const started = Date.now();
    const error = await clients.js
      .publish('still.nobody', 'x', { retries: 3 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(JetStreamNotEnabled);
    // two waits between three attempts: 250 ms then 500 ms
    expect(Date.now() - started).toBeGreaterThanOrEqual(700);
  });

  it('times out when something other than a stream holds the request', async () => {
    const silent = clients.nc.subscribe('silent.>');
    const error = await clients.js
      .publish('silent.a', 'x', { timeout: 200, retries: 3 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TimeoutError);
    silent.unsubscribe();
  });
});
