/**
 * The official JetStream client's consumer APIs (@nats-io/jetstream 3) against nats-server
 * 2.9.10 and slipstream-server: fetch, consume with heartbeats and re-pulls, next, ordered
 * consumers, push consumers, naks with delays, terms, work in progress, the deliver policies
 * and replay original.
 */
import {
  AckPolicy,
  DeliverPolicy,
  type JetStreamClient,
  type JetStreamManager,
  ReplayPolicy,
} from '@nats-io/jetstream';
import { describe, expect, it } from 'vitest';
import { type OfficialConnection, useOfficialJetStream } from './official.js';
import { streamServers, uniqueStream, useJetStreamServer } from './servers.js';

describe.each(streamServers)('official client consumers against $name', (kind) => {
  const server = useJetStreamServer(kind);
  let nc: OfficialConnection;
  let js: JetStreamClient;
  let jsm: JetStreamManager;
  useOfficialJetStream(server, (clients) => {
    ({ nc, js, jsm } = clients);
  });

  async function streamWith(count: number): Promise<string> {
    const name = uniqueStream('OC');
    await jsm.streams.add({ name, subjects: [`${name}.*`] });
    for (let i = 1; i <= count; i++) await js.publish(`${name}.${i % 3}`, `m${i}`);
    return name;
  }

  it('fetch, next and consume with re-pulls deliver everything once, acks keep info exact', async () => {
    const name = await streamWith(25);
    await jsm.consumers.add(name, { durable_name: 'C', ack_policy: AckPolicy.Explicit });
    const consumer = await js.consumers.get(name, 'C');
    const seen: string[] = [];
    for await (const m of await consumer.fetch({ max_messages: 5, expires: 2000 })) {
      seen.push(m.string());
      m.ack();
    }
    const one = await consumer.next({ expires: 2000 });
    seen.push(one!.string());
    expect(await one!.ackAck()).toBe(true);
    const messages = await consumer.consume({ max_messages: 7, idle_heartbeat: 500 });
    for await (const m of messages) {
      seen.push(m.string());
      m.ack();
      if (seen.length === 25) break;
    }
    expect(seen).toEqual(Array.from({ length: 25 }, (_, i) => `m${i + 1}`));
    await nc.flush();
    const info = await jsm.consumers.info(name, 'C');
    expect(info).toMatchObject({ num_pending: 0, num_redelivered: 0 });
    expect(info.delivered.stream_seq).toBe(25);
    expect(await consumer.next({ expires: 1000 })).toBeNull();
  });

  it('nak with a delay redelivers after it, term never, working holds past ack_wait', async () => {
    const name = await streamWith(3);
    await jsm.consumers.add(name, {
      durable_name: 'N',
      ack_policy: AckPolicy.Explicit,
      ack_wait: 1_000_000_000,
    });
    const consumer = await js.consumers.get(name, 'N');
    const first = await consumer.fetch({ max_messages: 3, expires: 2000 });
    const got = [];
    for await (const m of first) got.push(m);
    const started = Date.now();
    got[0]!.nak(400);
    got[1]!.term();
    got[2]!.working();
    const again = await consumer.next({ expires: 3000 });
    expect(again!.string()).toBe('m1');
    expect(again!.info.deliveryCount).toBe(2);
    expect(Date.now() - started).toBeGreaterThanOrEqual(350);
    again!.ack();
    got[2]!.ack();
    await nc.flush();
    expect(await consumer.next({ expires: 1500 })).toBeNull();
    const info = await jsm.consumers.info(name, 'N');
    expect(info).toMatchObject({ num_ack_pending: 0, num_redelivered: 0 });
  });

  it('ordered consumers read from each deliver policy, last per subject from a durable', async () => {
    const name = await streamWith(9);
    const read = async (options: Record<string, unknown>, count: number) => {
      const consumer = await js.consumers.get(name, options);
      const out: string[] = [];
      if (count === 0) return (await consumer.next({ expires: 1000 }))?.string() ?? null;
      for await (const m of await consumer.consume()) {
        out.push(`${m.subject}:${m.string()}`);
        if (out.length === count) break;
      }
      return out;
    };
    expect(await read({}, 9)).toHaveLength(9);
    expect(await read({ deliver_policy: DeliverPolicy.Last }, 1)).toEqual([`${name}.0:m9`]);
    expect(
      await read({ deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: 7 }, 3),
    ).toEqual([`${name}.1:m7`, `${name}.2:m8`, `${name}.0:m9`]);
    await jsm.consumers.add(name, {
      durable_name: 'LPS',
      ack_policy: AckPolicy.None,
      deliver_policy: DeliverPolicy.LastPerSubject,
      filter_subject: `${name}.*`,
    });
    const perSubject = await js.consumers.get(name, 'LPS');
    const last: string[] = [];
    for await (const m of await perSubject.fetch({ max_messages: 5, expires: 1000 })) {
      last.push(`${m.subject}:${m.string()}`);
    }
    expect(last).toEqual([`${name}.1:m7`, `${name}.2:m8`, `${name}.0:m9`]);
    expect(await read({ deliver_policy: DeliverPolicy.New }, 0)).toBeNull();
  });

  it('replay original keeps the spacing of the publishes', async () => {
    const name = uniqueStream('OR');
    await jsm.streams.add({ name, subjects: [`${name}.*`] });
    for (let i = 0; i < 3; i++) {
      await js.publish(`${name}.x`, `r${i}`);
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
    const consumer = await js.consumers.get(name, { replay_policy: ReplayPolicy.Original });
    const times: number[] = [];
    for await (const _ of await consumer.consume()) {
      times.push(Date.now());
      if (times.length === 3) break;
    }
    expect(times[2]! - times[0]!).toBeGreaterThanOrEqual(550);
  });

  it('push consumers deliver with flow control and heartbeats, ordered ones in order', async () => {
    const name = await streamWith(300);
    const deliver = `deliver.${name}`;
    await jsm.consumers.add(name, {
      durable_name: 'P',
      ack_policy: AckPolicy.Explicit,
      deliver_subject: deliver,
      flow_control: true,
      idle_heartbeat: 1_000_000_000,
    });
    const consumer = await js.consumers.getPushConsumer(name, 'P');
    const seen = new Set<string>();
    for await (const m of await consumer.consume()) {
      seen.add(m.string());
      m.ack();
      if (seen.size === 300) break;
    }
    expect(seen.size).toBe(300);
    const ordered = await js.consumers.getPushConsumer(name);
    let count = 0;
    for await (const _ of await ordered.consume()) if (++count === 300) break;
    expect(count).toBe(300);
  });
});
