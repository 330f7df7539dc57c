/**
 * Consumers side by side: each scenario runs its raw requests, pulls and acks against
 * nats-server 2.9.10 and against ours, and what each server sent back (messages with their
 * ack subjects, status replies with their headers, consumer and stream info) must be the same.
 */
import { describe, expect, it } from 'vitest';
import {
  type ConsumerTarget,
  ConsumerWire,
  sleep,
  startOurs,
  startReference,
  type WireMessage,
} from './jetstream-consumer-wire.js';

type Scenario = (wire: ConsumerWire) => Promise<unknown>;

/** Runs the scenario on both servers; returns nats-server's transcript, having checked ours. */
async function sideBySide(scenario: Scenario): Promise<unknown> {
  const transcripts: unknown[] = [];
  for (const start of [startReference, startOurs]) {
    const target: ConsumerTarget = await start();
    const wire = await ConsumerWire.connect(target.port);
    try {
      transcripts.push(await scenario(wire));
    } finally {
      wire.close();
      await target.stop();
    }
  }
  expect(transcripts[1]).toEqual(transcripts[0]);
  return transcripts[0];
}

/** A delivered message or status as comparable data: the ack subject without its time. */
function seen(m: WireMessage) {
  const status = m.headers?.split('\r\n')[0];
  const headers = m.headers
    ?.split('\r\n')
    .slice(1)
    .filter((line) => line.startsWith('Nats-'));
  return {
    subject: m.subject,
    ...(m.reply ? { reply: m.reply.replace(/^(\$JS\.ACK(?:\.[^.]+){5})\.\d+/, '$1.T') } : {}),
    ...(status?.startsWith('NATS/1.0 ') && status.length > 9 ? { status } : {}),
    ...(headers?.length ? { headers } : {}),
    data: m.data,
  };
}

function counters(info: Record<string, unknown>) {
  const { delivered, ack_floor, num_ack_pending, num_redelivered, num_waiting, num_pending } =
    info as Record<string, Record<string, unknown>>;
  return {
    delivered: { consumer_seq: delivered?.consumer_seq, stream_seq: delivered?.stream_seq },
    ack_floor: { consumer_seq: ack_floor?.consumer_seq, stream_seq: ack_floor?.stream_seq },
    num_ack_pending,
    num_redelivered,
    num_waiting,
    num_pending,
    error: info.error,
  };
}

async function stream(wire: ConsumerWire, config: Record<string, unknown>, publish: string[]) {
  await wire.request(`$JS.API.STREAM.CREATE.${config.name}`, config);
  for (const [i, subject] of publish.entries()) await wire.request(subject, `m${i + 1}`);
}

async function consumer(wire: ConsumerWire, stream: string, config: Record<string, unknown>) {
  const name = (config.durable_name ?? config.name) as string | undefined;
  const subject = name
    ? `$JS.API.CONSUMER.CREATE.${stream}.${name}`
    : `$JS.API.CONSUMER.CREATE.${stream}`;
  return wire.request(subject, { stream_name: stream, config });
}

/** Subscribes to the deliver subject first, then creates the push consumer delivering there. */
async function pushConsumer(
  wire: ConsumerWire,
  stream: string,
  config: Record<string, unknown> & { deliver_subject: string },
) {
  wire.sub(config.deliver_subject);
  await wire.flush();
  return consumer(wire, stream, config);
}

async function info(wire: ConsumerWire, stream: string, name: string) {
  return counters(await wire.request(`$JS.API.CONSUMER.INFO.${stream}.${name}`));
}

/** Acks and waits for the confirmation, after which the server has applied the ack. */
async function confirmed(wire: ConsumerWire, m: WireMessage, body = '+ACK') {
  const inbox = wire.inbox();
  await wire.flush();
  wire.pub(m.reply!, body, inbox);
  return wire.received(inbox, 1);
}

/** Sends a pull request and collects what comes back until `count` arrived or `wait` ms. */
async function pull(
  wire: ConsumerWire,
  stream: string,
  name: string,
  request: unknown,
  count: number,
  wait = 2_000,
) {
  const inbox = wire.inbox();
  await wire.flush();
  wire.pub(`$JS.API.CONSUMER.MSG.NEXT.${stream}.${name}`, request, inbox);
  return wire.received(inbox, count, wait);
}

describe('consumers, against nats-server 2.9.10 and ours', () => {
  it('explicit acks, naks, terms and confirmed acks keep the info exact', async () => {
    const transcript = await sideBySide(async (wire) => {
      await stream(wire, { name: 'S', subjects: ['s.*'] }, ['s.a', 's.b', 's.a', 's.c', 's.a']);
      const created = counters(
        await consumer(wire, 'S', { durable_name: 'D', ack_policy: 'explicit', ack_wait: 5e9 }),
      );
      const first = await pull(wire, 'S', 'D', { batch: 3, expires: 1e9 }, 3);
      const confirm = wire.inbox();
      await wire.flush();
      wire.pub(first[1]!.reply!, '+ACK', confirm);
      const confirmation = await wire.received(confirm, 1);
      const afterOne = await info(wire, 'S', 'D');
      await confirmed(wire, first[0]!, '');
      await confirmed(wire, first[2]!, '-NAK');
      const afterNak = await info(wire, 'S', 'D');
      const second = await pull(wire, 'S', 'D', { batch: 3, no_wait: true }, 3);
      await confirmed(wire, second[0]!, '+TERM');
      await confirmed(wire, second[1]!);
      const afterTerm = await info(wire, 'S', 'D');
      // An ack again, with a reply: confirmed though nothing changes.
      const again = wire.inbox();
      await wire.flush();
      wire.pub(second[1]!.reply!, '+ACK', again);
      const reconfirmed = await wire.received(again, 1);
      const account = await wire.request('$JS.API.INFO');
      const streamInfo = await wire.request('$JS.API.STREAM.INFO.S');
      return {
        created,
        first: first.map(seen),
        confirmation: confirmation.map(seen),
        afterOne,
        afterNak,
        second: second.map(seen),
        afterTerm,
        reconfirmed: reconfirmed.map(seen),
        consumers: account.consumers,
        consumerCount: (streamInfo.state as Record<string, unknown>).consumer_count,
      };
    });
    expect(transcript).toMatchObject({
      first: [{ data: 'm1' }, { data: 'm2' }, { data: 'm3' }],
      confirmation: [{ data: '' }],
      second: [{ data: 'm3', reply: '$JS.ACK.S.D.2.3.4.T.2' }, { data: 'm4' }, { data: 'm5' }],
      afterTerm: { num_ack_pending: 1, num_redelivered: 0 },
      consumers: 1,
      consumerCount: 1,
    });
  });

  it('ack policy all acknowledges everything up to the acked message', async () => {
    const transcript = await sideBySide(async (wire) => {
      await stream(wire, { name: 'A', subjects: ['a.*'] }, ['a.a', 'a.b', 'a.c', 'a.d', 'a.e']);
      await consumer(wire, 'A', { durable_name: 'ALL', ack_policy: 'all' });
      const got = await pull(wire, 'A', 'ALL', { batch: 5, no_wait: true }, 5);
      await confirmed(wire, got[2]!);
      const afterThird = await info(wire, 'A', 'ALL');
      await confirmed(wire, got[1]!);
      const afterOlder = await info(wire, 'A', 'ALL');
      // A pull that cannot take the next message (max_bytes) leaves its pending count alone.
      await wire.request('a.f', 'x'.repeat(200));
      await wire.request('a.g', 'small');
      const tooSmall = await pull(wire, 'A', 'ALL', { batch: 1, max_bytes: 50, expires: 5e8 }, 1);
      const next = await pull(wire, 'A', 'ALL', { batch: 1, no_wait: true }, 1);
      return { afterThird, afterOlder, tooSmall: tooSmall.map(seen), next: next.map(seen) };
    });
    expect(transcript).toMatchObject({
      afterThird: { ack_floor: { consumer_seq: 3, stream_seq: 3 }, num_ack_pending: 2 },
      afterOlder: { ack_floor: { consumer_seq: 3, stream_seq: 3 }, num_ack_pending: 2 },
      next: [{ reply: '$JS.ACK.A.ALL.1.6.6.T.1' }],
    });
  });

  it('answers pull requests with the statuses and pending headers nats-server sends', async () => {
    const transcript = (await sideBySide(async (wire) => {
      await stream(wire, { name: 'T', subjects: ['t.*'] }, []);
      await consumer(wire, 'T', {
        durable_name: 'P',
        ack_policy: 'explicit',
        max_waiting: 1,
        max_batch: 5,
        max_expires: 2e9,
        max_bytes: 1000,
      });
      const noWait = await pull(wire, 'T', 'P', { batch: 2, no_wait: true }, 1);
      const tooBig = await pull(wire, 'T', 'P', { batch: 10 }, 1);
      const tooLong = await pull(wire, 'T', 'P', { batch: 1, expires: 3e9 }, 1);
      const tooManyBytes = await pull(wire, 'T', 'P', { batch: 1, max_bytes: 2000 }, 1);
      const decimal = await pull(wire, 'T', 'P', '9', 1);
      const badHeartbeat = await pull(wire, 'T', 'P', { expires: 1e9, idle_heartbeat: 6e8 }, 1);
      const waiting = wire.inbox();
      await wire.flush();
      wire.pub('$JS.API.CONSUMER.MSG.NEXT.T.P', { batch: 3, expires: 6e8 }, waiting);
      const overflow = await pull(wire, 'T', 'P', { batch: 1, expires: 1e9 }, 1);
      const timedOut = await wire.received(waiting, 1);
      const parked = wire.inbox();
      await wire.flush();
      wire.pub('$JS.API.CONSUMER.MSG.NEXT.T.P', { batch: 1, expires: 1.5e9 }, parked);
      await wire.flush();
      await wire.request('$JS.API.CONSUMER.DELETE.T.P');
      const deleted = await wire.received(parked, 1);
      await consumer(wire, 'T', { durable_name: 'H', ack_policy: 'explicit' });
      const beats = await pull(
        wire,
        'T',
        'H',
        { batch: 1, expires: 1e9, idle_heartbeat: 3e8 },
        9,
        1_500,
      );
      return {
        noWait: noWait.map(seen),
        tooBig: tooBig.map(seen),
        tooLong: tooLong.map(seen),
        tooManyBytes: tooManyBytes.map(seen),
        decimal: decimal.map(seen),
        badHeartbeat: badHeartbeat.map(seen),
        overflow: overflow.map(seen),
        timedOut: timedOut.map(seen),
        deleted: deleted.map(seen),
        // Heartbeats every 300 ms of a 1 s request: two or three, then the timeout.
        beats: beats.map((m) => seen(m).status),
      };
    })) as { beats: string[] };
    expect(transcript).toMatchObject({
      noWait: [{ status: 'NATS/1.0 404 No Messages' }],
      tooBig: [{ status: 'NATS/1.0 409 Exceeded MaxRequestBatch of 5' }],
      overflow: [{ status: 'NATS/1.0 409 Exceeded MaxWaiting' }],
      timedOut: [
        {
          status: 'NATS/1.0 408 Request Timeout',
          headers: ['Nats-Pending-Messages: 3', 'Nats-Pending-Bytes: 0'],
        },
      ],
      deleted: [{ status: 'NATS/1.0 409 Consumer Deleted' }],
    });
    expect(transcript.beats.at(-1)).toBe('NATS/1.0 408 Request Timeout');
    expect(
      transcript.beats.filter((s) => s === 'NATS/1.0 100 Idle Heartbeat').length,
    ).toBeGreaterThanOrEqual(2);
  });

  it('max_ack_pending stops delivery until acks arrive; max_bytes ends a request with 409', async () => {
    await sideBySide(async (wire) => {
      await stream(wire, { name: 'M', subjects: ['m.*'] }, ['m.a', 'm.b', 'm.c', 'm.d']);
      await consumer(wire, 'M', { durable_name: 'C', ack_policy: 'explicit', max_ack_pending: 2 });
      const held = await pull(wire, 'M', 'C', { batch: 4, expires: 5e8 }, 3);
      await confirmed(wire, held[0]!);
      const released = await pull(wire, 'M', 'C', { batch: 4, expires: 5e8 }, 2);
      const state = await info(wire, 'M', 'C');
      await consumer(wire, 'M', { durable_name: 'B', ack_policy: 'none' });
      const bytes = await pull(wire, 'M', 'B', { batch: 4, max_bytes: 60, expires: 5e8 }, 2);
      return {
        held: held.map(seen),
        released: released.map(seen),
        state,
        bytes: bytes.map(seen),
      };
    });
  });

  it('starts where each deliver policy says, within the filter', async () => {
    await sideBySide(async (wire) => {
      await stream(wire, { name: 'P', subjects: ['p.*'] }, ['p.a', 'p.b', 'p.a', 'p.c', 'p.b']);
      const third = await wire.request('$JS.API.STREAM.MSG.GET.P', { seq: 3 });
      const time = (third.message as { time: string }).time;
      const policies: Record<string, Record<string, unknown>> = {
        all: { deliver_policy: 'all', filter_subject: 'p.b' },
        last: { deliver_policy: 'last' },
        lastFiltered: { deliver_policy: 'last', filter_subject: 'p.a' },
        new: { deliver_policy: 'new' },
        perSubject: { deliver_policy: 'last_per_subject', filter_subject: 'p.*' },
        bySeq: { deliver_policy: 'by_start_sequence', opt_start_seq: 4 },
        byTime: { deliver_policy: 'by_start_time', opt_start_time: time },
      };
      const result: Record<string, unknown> = {};
      for (const [name, config] of Object.entries(policies)) {
        const created = await consumer(wire, 'P', {
          durable_name: name,
          ack_policy: 'none',
          ...config,
        });
        const got = await pull(wire, 'P', name, { batch: 10, no_wait: true }, 10, 500);
        result[name] = { created: counters(created), got: got.map(seen) };
      }
      return result;
    });
  });

  it('workqueue: acks remove messages, overlapping or unfiltered consumers are refused', async () => {
    await sideBySide(async (wire) => {
      await stream(wire, { name: 'W', subjects: ['w.>'], retention: 'workqueue' }, [
        'w.a',
        'w.b',
        'w.a',
      ]);
      const noAck = await consumer(wire, 'W', { durable_name: 'N', ack_policy: 'none' });
      const a = await consumer(wire, 'W', {
        durable_name: 'A',
        ack_policy: 'explicit',
        filter_subject: 'w.a',
      });
      const overlap = await consumer(wire, 'W', {
        durable_name: 'O',
        ack_policy: 'explicit',
        filter_subject: 'w.>',
      });
      const unfiltered = await consumer(wire, 'W', { durable_name: 'U', ack_policy: 'explicit' });
      const got = await pull(wire, 'W', 'A', { batch: 5, no_wait: true }, 5, 500);
      await confirmed(wire, got[0]!);
      const state = (await wire.request('$JS.API.STREAM.INFO.W')).state as Record<string, unknown>;
      return {
        noAck: noAck.error,
        created: counters(a),
        overlap: overlap.error,
        unfiltered: unfiltered.error,
        got: got.map(seen),
        messages: state.messages,
        first: state.first_seq,
      };
    });
  });

  it('interest: a message stays until every interested consumer acked it', async () => {
    await sideBySide(async (wire) => {
      await stream(wire, { name: 'I', subjects: ['i.*'], retention: 'interest' }, ['i.a']);
      const states: unknown[] = [];
      const state = async () => {
        const s = (await wire.request('$JS.API.STREAM.INFO.I')).state as Record<string, unknown>;
        states.push({ messages: s.messages, first: s.first_seq, last: s.last_seq });
      };
      await state();
      await consumer(wire, 'I', { durable_name: 'A', ack_policy: 'explicit' });
      await consumer(wire, 'I', {
        durable_name: 'B',
        ack_policy: 'explicit',
        filter_subject: 'i.b',
      });
      await wire.request('i.a', 'x');
      await wire.request('i.b', 'y');
      await state();
      const forA = await pull(wire, 'I', 'A', { batch: 2, no_wait: true }, 2);
      for (const m of forA) await confirmed(wire, m);
      await state();
      const forB = await pull(wire, 'I', 'B', { batch: 1, no_wait: true }, 1);
      await state();
      await wire.request('$JS.API.CONSUMER.DELETE.I.B');
      await state();
      return { states, forA: forA.map(seen), forB: forB.map(seen) };
    });
  });

  it('push: delivers to the deliver subject with ack subjects, then idle heartbeats', async () => {
    await sideBySide(async (wire) => {
      await stream(wire, { name: 'H', subjects: ['h.*'] }, ['h.a', 'h.b']);
      await pushConsumer(wire, 'H', {
        durable_name: 'PU',
        deliver_subject: 'deliver.h',
        ack_policy: 'explicit',
        idle_heartbeat: 4e8,
      });
      const got = await wire.received('deliver.h', 3, 1_500);
      return got.slice(0, 3).map(seen);
    });
  });

  it('redelivers after each backoff step and stops at max_deliver', async () => {
    const redeliveredAfter: number[][] = [];
    const transcript = await sideBySide(async (wire) => {
      await stream(wire, { name: 'R', subjects: ['r.*'] }, ['r.a']);
      await consumer(wire, 'R', {
        durable_name: 'RD',
        ack_policy: 'explicit',
        backoff: [3e8, 8e8],
        max_deliver: 3,
      });
      const asked = Date.now();
      const got = await pull(wire, 'R', 'RD', { batch: 5, expires: 2.5e9 }, 4, 3_500);
      // From the request, which the first delivery cannot precede: the arrival of that first
      // delivery may itself be late on a busy machine, which shortened a gap measured from it.
      redeliveredAfter.push(got.slice(1, 3).map((m) => m.at - asked));
      return { got: got.map(seen), info: await info(wire, 'R', 'RD') };
    });
    expect(transcript).toMatchObject({
      got: [
        { reply: '$JS.ACK.R.RD.1.1.1.T.0' },
        { reply: '$JS.ACK.R.RD.2.1.2.T.0' },
        { reply: '$JS.ACK.R.RD.3.1.3.T.0' },
        { status: 'NATS/1.0 408 Request Timeout' },
      ],
    });
    // The first redelivery 300 ms after the delivery, the second 800 ms after that, on both.
    for (const [first, second] of redeliveredAfter) {
      expect(first).toBeGreaterThanOrEqual(295);
      expect(first).toBeLessThan(700);
      expect(second).toBeGreaterThanOrEqual(1_095);
      expect(second).toBeLessThan(1_700);
    }
  });

  it('a new ack_wait applies to the deliveries already out', async () => {
    const transcript = await sideBySide(async (wire) => {
      await stream(wire, { name: 'W', subjects: ['w.*'] }, ['w.a']);
      const config = { durable_name: 'WD', ack_policy: 'explicit', ack_wait: 30e9 };
      await consumer(wire, 'W', config);
      const first = await pull(wire, 'W', 'WD', { batch: 1 }, 1);
      await consumer(wire, 'W', { ...config, ack_wait: 5e8 });
      // due half a second after its delivery now, not 30 s
      const again = await pull(wire, 'W', 'WD', { batch: 1, expires: 3e9 }, 1, 3_500);
      return [...first, ...again].map(seen);
    });
    expect(transcript).toMatchObject([
      { reply: '$JS.ACK.W.WD.1.1.1.T.0' },
      { reply: '$JS.ACK.W.WD.2.1.2.T.0' },
    ]);
  });

  // nats-server 2.9.10 re-checks the deliveries out only on a new ack_wait (consumer.go
  // updateConfig resets its pending timer then): a new backoff applies from their next deadline.
  it('a new backoff step alone leaves the deadlines of the deliveries already out', async () => {
    const transcript = await sideBySide(async (wire) => {
      await stream(wire, { name: 'B', subjects: ['b.*'] }, ['b.a']);
      const config = { durable_name: 'BD', ack_policy: 'explicit', max_deliver: 3 };
      await consumer(wire, 'B', { ...config, backoff: [5e8, 30e9] });
      const first = await pull(wire, 'B', 'BD', { batch: 2, expires: 3e9 }, 2, 3_500);
      // The second step shortened, the first (ack_wait) kept: the redelivery out stays due 30 s on.
      const updated = await consumer(wire, 'B', { ...config, backoff: [5e8, 5e8] });
      const again = await pull(wire, 'B', 'BD', { batch: 1, expires: 1.5e9 }, 1, 2_500);
      const ackWait = (updated as { config?: { ack_wait?: number } }).config?.ack_wait;
      return { ackWait, replies: [...first, ...again].map(seen) };
    });
    expect(transcript).toMatchObject({
      ackWait: 5e8,
      replies: [
        { reply: '$JS.ACK.B.BD.1.1.1.T.0' },
        { reply: '$JS.ACK.B.BD.2.1.2.T.0' },
        { status: 'NATS/1.0 408 Request Timeout' },
      ],
    });
  });

  it("filters of a mirror's consumers are not held against its own (empty) subjects", async () => {
    const transcript = await sideBySide(async (wire) => {
      await stream(wire, { name: 'ORIGIN', subjects: ['origin.*'] }, []);
      await wire.request('$JS.API.STREAM.CREATE.COPY', {
        name: 'COPY',
        mirror: { name: 'ORIGIN' },
      });
      const onMirror = await consumer(wire, 'COPY', {
        durable_name: 'F',
        filter_subject: 'origin.a',
      });
      return { onMirror: onMirror.error ?? 'created' };
    });
    // A filter outside a plain stream's subjects: 2.9.10 refuses it and 2.11 (which we follow)
    // accepts it; jetstream-consumer-2-10.test.ts covers that.
    expect(transcript).toEqual({ onMirror: 'created' });
  });

  it('publishes the consumer advisories and ack metrics nats-server does', async () => {
    const transcript = await sideBySide(async (wire) => {
      wire.sub('$JS.EVENT.ADVISORY.CONSUMER.>');
      wire.sub('$JS.EVENT.METRIC.>');
      await stream(wire, { name: 'V', subjects: ['v.*'] }, ['v.a', 'v.b', 'v.c']);
      await consumer(wire, 'V', {
        durable_name: 'EV',
        ack_policy: 'explicit',
        ack_wait: 3e8,
        max_deliver: 2,
        sample_freq: '100%',
      });
      const first = await pull(wire, 'V', 'EV', { batch: 3, no_wait: true }, 3);
      await confirmed(wire, first[0]!, '-NAK');
      await confirmed(wire, first[1]!);
      const again = await pull(wire, 'V', 'EV', { batch: 1, no_wait: true }, 1);
      await confirmed(wire, again[0]!, '+TERM');
      // The third message is never acked: redelivered once, then out of deliveries.
      await pull(wire, 'V', 'EV', { batch: 3, expires: 1.2e9 }, 3, 1_500);
      await wire.request('$JS.API.CONSUMER.DELETE.V.EV');
      await wire.flush();
      const events = wire.messages.filter((m) => m.subject.startsWith('$JS.EVENT.'));
      return events.map((m) => {
        const { id, timestamp, ack_time, ...rest } = JSON.parse(m.data);
        return { subject: m.subject, ...rest, ...(ack_time > 0 ? { ack_time: 'set' } : {}) };
      });
    });
    expect((transcript as { type: string }[]).map((event) => event.type.split('.').at(-1))).toEqual(
      ['consumer_action', 'nak', 'consumer_ack', 'terminated', 'max_deliver', 'consumer_action'],
    );
  });

  it('push: rate_limit_bps spaces deliveries once the burst (max_msg_size) is spent', async () => {
    const spans: number[] = [];
    await sideBySide(async (wire) => {
      const body = 'x'.repeat(400);
      await stream(wire, { name: 'RL', subjects: ['rl.*'], max_msg_size: 1000 }, []);
      for (let i = 0; i < 5; i++) await wire.request('rl.a', body);
      // 8000 bits a second: 1000 bytes, about two of these messages.
      await pushConsumer(wire, 'RL', {
        durable_name: 'RL',
        deliver_subject: 'deliver.rl',
        ack_policy: 'none',
        rate_limit_bps: 8000,
      });
      const got = await wire.received('deliver.rl', 5, 5_000);
      spans.push(got.at(-1)!.at - got[0]!.at);
      return got.map((m) => m.subject);
    });
    // Two go at once from the full bucket, the other three at ~2.2 a second.
    for (const span of spans) {
      expect(span).toBeGreaterThan(900);
      expect(span).toBeLessThan(2_500);
    }
  });

  it('a purge moves consumers past what it removed', async () => {
    await sideBySide(async (wire) => {
      await stream(wire, { name: 'PG', subjects: ['pg.*'] }, ['pg.a', 'pg.b', 'pg.a', 'pg.b']);
      await consumer(wire, 'PG', { durable_name: 'C', ack_policy: 'explicit' });
      await pull(wire, 'PG', 'C', { batch: 2, no_wait: true }, 2);
      await wire.request('$JS.API.STREAM.PURGE.PG');
      const afterPurge = await info(wire, 'PG', 'C');
      await wire.request('pg.a', 'after');
      const next = await pull(wire, 'PG', 'C', { batch: 2, no_wait: true }, 2, 500);
      return { afterPurge, next: next.map(seen) };
    });
  });

  /** Pulls (no_wait) until the request ends: what came, as comparable data. */
  async function drain(wire: ConsumerWire, stream: string, name: string) {
    const inbox = wire.inbox();
    await wire.flush();
    wire.pub(`$JS.API.CONSUMER.MSG.NEXT.${stream}.${name}`, { batch: 10, no_wait: true }, inbox);
    for (let n = 1; ; n++) {
      const got = await wire.received(inbox, n);
      if (got.length < n || got[n - 1]!.headers?.startsWith('NATS/1.0 4')) return got.map(seen);
    }
  }

  // nats-server 2.9.10 (stream.go purge, consumer.go purge): every consumer whose filter takes
  // the purge's subject (all of them without one) drops its pending acks and moves to the
  // first message left of that subject, or past the stream's end when none is left.
  it.each([
    { filter: 'p.a' },
    { filter: 'p.b', seq: 4 },
    { filter: 'p.a', keep: 1 },
    { filter: 'p.*', seq: 3 },
    { filter: 'p.c' },
    { keep: 2 },
    { seq: 3 },
  ])('a purge of %j moves the consumers its subject concerns', async (purge) => {
    await sideBySide(async (wire) => {
      const subjects = ['p.a', 'p.b', 'p.a', 'p.b', 'p.a', 'p.b'];
      await stream(wire, { name: 'P', subjects: ['p.*'] }, subjects);
      const names = { ALL: undefined, A: 'p.a', B: 'p.b' };
      for (const [name, filter] of Object.entries(names)) {
        const config = { durable_name: name, ack_policy: 'explicit', ack_wait: 30e9 };
        await consumer(wire, 'P', { ...config, filter_subject: filter });
        const [first] = await pull(wire, 'P', name, { batch: 2, no_wait: true }, 2);
        await confirmed(wire, first!);
      }
      const purged = await wire.request('$JS.API.STREAM.PURGE.P', purge);
      const after: Record<string, unknown> = { purged };
      for (const name of Object.keys(names)) {
        after[name] = {
          info: await info(wire, 'P', name),
          next: await drain(wire, 'P', name),
          later: await info(wire, 'P', name),
        };
      }
      return after;
    });
  });

  it('an ephemeral consumer nobody asks is removed after its inactive threshold', async () => {
    await sideBySide(async (wire) => {
      await stream(wire, { name: 'E', subjects: ['e.*'] }, []);
      await consumer(wire, 'E', { name: 'EPH', ack_policy: 'explicit', inactive_threshold: 2e8 });
      const before = await info(wire, 'E', 'EPH');
      await sleep(2_000);
      const after = await info(wire, 'E', 'EPH');
      return { before, after };
    });
  });

  it('a push consumer nobody listens to outlives a 30 day inactive threshold by more than 1 ms', async () => {
    const transcript = await sideBySide(async (wire) => {
      await stream(wire, { name: 'L', subjects: ['l.*'] }, []);
      // beyond one setTimeout (24.8 days), which Node runs after 1 ms
      const threshold = 30 * 24 * 3600 * 1e9;
      const config = { name: 'LP', deliver_subject: 'nobody', inactive_threshold: threshold };
      await consumer(wire, 'L', { ...config, ack_policy: 'explicit' });
      await sleep(500);
      return (await info(wire, 'L', 'LP')).error ?? 'still there';
    });
    expect(transcript).toBe('still there');
  });
});
