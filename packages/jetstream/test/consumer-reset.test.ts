/**
 * `jsm.consumers.reset` (nats-server 2.14 CONSUMER.RESET), as nats.js v3 has it: refused
 * before anything is sent by a server older than 2.14.0 (nats.js's Feature.JS_CONSUMER_RESET),
 * a negative or fractional sequence refused, and against our server (presented as 2.14.0, as
 * it does not advertise 2.14 yet) the consumer starts over. The official client
 * (@nats-io/jetstream 3) sends the same request and reads the same answer.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { AckPolicy, JetStreamError } from '../src/mod.js';
import { useOfficialJetStream } from './official.js';
import { memoryStream, ourServers, presentAs, useJetStreamClients } from './servers.js';

describe.each(ourServers)('consumer reset against $name', (kind) => {
  const { server, clients } = useJetStreamClients(kind);
  let official: Parameters<Parameters<typeof useOfficialJetStream>[1]>[0];
  useOfficialJetStream(server, (opened) => {
    official = opened;
  });

  async function consumedTwo(): Promise<{ stream: string; name: string }> {
    const { jsm, js } = clients;
    const stream = await memoryStream(jsm);
    for (let i = 1; i <= 3; i++) await js.publish(`${stream}.a`, `m${i}`);
    const name = 'C';
    await jsm.consumers.add(stream, { durable_name: name, ack_policy: AckPolicy.Explicit });
    const consumer = await js.consumers.get(stream, name);
    const messages = await consumer.fetch({ max_messages: 2, expires: 1_000 });
    let first = true;
    for await (const m of messages) {
      // The first is acked, the second left pending.
      if (first) await m.ackAck();
      first = false;
    }
    return { stream, name };
  }

  it('is refused below 2.14.0 before anything is sent', async () => {
    presentAs(clients.nc, '2.11.0');
    await expect(clients.jsm.consumers.reset('S', 'C')).rejects.toThrow(
      new JetStreamError('consumer reset requires server 2.14.0'),
    );
  });

  describe('on a server presented as 2.14.0', () => {
    beforeAll(() => {
      presentAs(clients.nc, '2.14.0');
      (official.nc as unknown as { features: { update(v: string): void } }).features.update(
        '2.14.0',
      );
    });

    it('goes back to the ack floor, or to a sequence, answering with the info', async () => {
      const { stream, name } = await consumedTwo();
      const { jsm } = clients;
      const back = await jsm.consumers.reset(stream, name);
      expect(back.reset_seq).toBe(2);
      expect(back.delivered).toMatchObject({ consumer_seq: 0, stream_seq: 1 });
      expect(back.ack_floor).toMatchObject({ consumer_seq: 0, stream_seq: 1 });
      expect(back.num_ack_pending).toBe(0);
      expect(back.num_pending).toBe(2);
      expect(back.config.durable_name).toBe(name);
      const ahead = await jsm.consumers.reset(stream, name, 3);
      expect(ahead).toMatchObject({ reset_seq: 3, num_pending: 1 });
      const next = await (await clients.js.consumers.get(stream, name)).next({ expires: 1_000 });
      expect(next?.string()).toBe('m3');
    });

    it('refuses a negative or fractional sequence before sending', async () => {
      for (const seq of [-1, 1.5]) {
        await expect(clients.jsm.consumers.reset('S', 'C', seq)).rejects.toThrow(
          "'seq' must be a non-negative integer",
        );
      }
    });

    it('reports the server refusing a sequence its deliver policy does not allow', async () => {
      const { jsm, js } = clients;
      const stream = await memoryStream(jsm);
      await js.publish(`${stream}.a`, 'm1');
      await jsm.consumers.add(stream, { durable_name: 'N', deliver_policy: 'new' });
      await expect(jsm.consumers.reset(stream, 'N', 1)).rejects.toMatchObject({
        code: 10204,
        message: 'invalid reset: not allowed',
      });
    });

    it('the official client resets the same way', async () => {
      const { stream, name } = await consumedTwo();
      const reset = await official.jsm.consumers.reset(stream, name);
      expect(reset.reset_seq).toBe(2);
      expect(reset.delivered.stream_seq).toBe(1);
    });
  });
});
