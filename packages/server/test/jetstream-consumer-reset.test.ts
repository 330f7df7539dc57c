/**
 * CONSUMER.RESET (nats-server 2.14, ADR-60): back to the ack floor, or to a stream sequence
 * the deliver policy allows, answered with the consumer's info and `reset_seq`. Follows
 * TestJetStreamConsumerResetToSequence (its single-server R1 case) and ...ConstraintOnStartSeq
 * / ...ConstraintOnStartTime (nats-server v2.14.2 server/jetstream_consumer_test.go:10917,
 * 11141, 11209) and processResetReq / resetStartingSeqLocked (v2.14.2 server/consumer.go:
 * 4495-4530, 2807-2875). nats-server 2.9.10 has no reset, so the answers are written out.
 */
import { describe, expect, it } from 'vitest';
import {
  type Answer,
  type ConsumerRequests,
  errorOf,
  useOurServer,
} from './jetstream-consumer-requests.js';
import { type ConsumerWire, sleep } from './jetstream-consumer-wire.js';

let wire: ConsumerWire;
let js: ConsumerRequests;
useOurServer((connected, requests) => {
  wire = connected;
  js = requests;
});

const RESET = '$JS.API.CONSUMER.RESET.TEST.CONSUMER';

/** One message of a pull request of 1 (no_wait), unacked: `data` and its ack subject. */
async function fetchOne(): Promise<{ data: string; reply: string }> {
  const inbox = wire.inbox();
  wire.pub('$JS.API.CONSUMER.MSG.NEXT.TEST.CONSUMER', { batch: 1, expires: 2_000_000_000 }, inbox);
  const [message] = await wire.received(inbox, 1);
  return { data: message!.data, reply: message!.reply! };
}

async function ackSync(reply: string): Promise<void> {
  const inbox = wire.inbox();
  wire.pub(reply, '+ACK', inbox);
  await wire.received(inbox, 1);
}

/** The info's counts as the nats-server test reads them. */
function counts(info: Answer) {
  const delivered = info.delivered as { consumer_seq: number; stream_seq: number };
  const ackFloor = info.ack_floor as { consumer_seq: number; stream_seq: number };
  return {
    numPending: info.num_pending,
    numAckPending: info.num_ack_pending,
    dseq: delivered.consumer_seq,
    adflr: ackFloor.consumer_seq,
    sseq: delivered.stream_seq,
    asflr: ackFloor.stream_seq,
  };
}

const streamState = async () =>
  (await wire.request('$JS.API.STREAM.INFO.TEST')).state as { messages: number; first_seq: number };

describe('CONSUMER.RESET as nats-server 2.14', () => {
  it('TestJetStreamConsumerResetToSequence: to the ack floor, then ahead; interest drops what nobody needs', async () => {
    await js.stream({ name: 'TEST', subjects: ['foo'] });
    expect(
      errorOf(
        await js.consumer('TEST', {
          durable_name: 'CONSUMER',
          ack_policy: 'explicit',
          max_ack_pending: 1,
        }),
      ),
    ).toBeUndefined();
    for (let i = 1; i <= 4; i++) await wire.request('foo', `msg${i}`);

    const first = await fetchOne();
    expect(first.data).toBe('msg1');
    await ackSync(first.reply);
    // Now interest retention, with the messages and the consumer there.
    const update = await wire.request('$JS.API.STREAM.UPDATE.TEST', {
      name: 'TEST',
      subjects: ['foo'],
      retention: 'interest',
    });
    expect(update.error).toBeUndefined();
    expect((await streamState()).first_seq).toBe(2);
    const info = () => js.info('TEST', 'CONSUMER');
    expect(counts(await info())).toEqual({
      numPending: 3,
      numAckPending: 0,
      dseq: 1,
      adflr: 1,
      sseq: 1,
      asflr: 1,
    });

    expect((await fetchOne()).data).toBe('msg2');
    expect(counts(await info())).toMatchObject({
      numPending: 2,
      numAckPending: 1,
      dseq: 2,
      sseq: 2,
    });

    // An empty request resets back to the ack floor.
    for (const body of ['', { seq: 0 }]) {
      const reset = await wire.request(RESET, body);
      expect(reset.type).toBe('io.nats.jetstream.api.v1.consumer_reset_response');
      expect(reset.reset_seq).toBe(2);
      expect(reset.delivered).toEqual({ consumer_seq: 0, stream_seq: 1 });
      expect(reset.ack_floor).toEqual({ consumer_seq: 0, stream_seq: 1 });
      expect(reset.num_pending).toBe(3);
      expect((reset.config as Answer).durable_name).toBe('CONSUMER');
      expect(counts(await info())).toEqual({
        numPending: 3,
        numAckPending: 0,
        dseq: 0,
        adflr: 0,
        sseq: 1,
        asflr: 1,
      });
    }

    // To the last message: the floor moves up past messages nobody needs any more.
    const ahead = await wire.request(RESET, { seq: 4 });
    expect(ahead.reset_seq).toBe(4);
    expect(ahead.delivered).toEqual({ consumer_seq: 0, stream_seq: 3 });
    expect(ahead.ack_floor).toEqual({ consumer_seq: 0, stream_seq: 3 });
    expect(counts(await info())).toEqual({
      numPending: 1,
      numAckPending: 0,
      dseq: 0,
      adflr: 0,
      sseq: 3,
      asflr: 3,
    });
    expect((await streamState()).first_seq).toBe(4);

    const last = await fetchOne();
    expect(last.data).toBe('msg4');
    expect(counts(await info())).toEqual({
      numPending: 0,
      numAckPending: 1,
      dseq: 1,
      adflr: 0,
      sseq: 4,
      asflr: 3,
    });
    await ackSync(last.reply);
    expect(counts(await info())).toEqual({
      numPending: 0,
      numAckPending: 0,
      dseq: 1,
      adflr: 1,
      sseq: 4,
      asflr: 4,
    });
    expect(await streamState()).toMatchObject({ messages: 0, first_seq: 5 });
  });

  it('TestJetStreamConsumerResetToSequenceConstraintOnStartSeq: not below opt_start_seq', async () => {
    await js.stream({ name: 'TEST', subjects: ['foo'] });
    // Published first: our start position still moves an opt_start_seq beyond the stream's
    // end back to it, as 2.9.10 (2.11+ keeps it).
    for (let i = 1; i <= 4; i++) await wire.request('foo', `msg${i}`);
    await js.consumer('TEST', {
      durable_name: 'CONSUMER',
      ack_policy: 'explicit',
      deliver_policy: 'by_start_sequence',
      opt_start_seq: 3,
    });
    const first = await fetchOne();
    expect(first.data).toBe('msg3');
    await ackSync(first.reply);

    const below = await wire.request(RESET, { seq: 2 });
    expect(below).toEqual({
      type: 'io.nats.jetstream.api.v1.consumer_reset_response',
      error: { code: 400, err_code: 10204, description: 'invalid reset: below start seq' },
    });
    const at = await wire.request(RESET, { seq: 3 });
    expect(at).toMatchObject({
      reset_seq: 3,
      delivered: { consumer_seq: 0, stream_seq: 2 },
      ack_floor: { consumer_seq: 0, stream_seq: 2 },
    });
    expect((await fetchOne()).data).toBe('msg3');
  });

  it('TestJetStreamConsumerResetToSequenceConstraintOnStartTime: not below the first message at opt_start_time', async () => {
    await js.stream({ name: 'TEST', subjects: ['foo'] });
    for (let i = 1; i <= 2; i++) await wire.request('foo', `msg${i}`);
    await sleep(5);
    await js.consumer('TEST', {
      durable_name: 'CONSUMER',
      ack_policy: 'explicit',
      deliver_policy: 'by_start_time',
      opt_start_time: new Date().toISOString(),
    });
    await sleep(5);
    for (let i = 3; i <= 4; i++) await wire.request('foo', `msg${i}`);
    const first = await fetchOne();
    expect(first.data).toBe('msg3');
    await ackSync(first.reply);

    expect((await wire.request(RESET, { seq: 2 })).error).toEqual({
      code: 400,
      err_code: 10204,
      description: 'invalid reset: below start time',
    });
    expect(await wire.request(RESET, { seq: 3 })).toMatchObject({
      reset_seq: 3,
      delivered: { consumer_seq: 0, stream_seq: 2 },
    });
    expect((await fetchOne()).data).toBe('msg3');
  });

  it('refuses a sequence for other deliver policies, but not the ack floor; bad JSON; no consumer, no answer', async () => {
    await js.stream({ name: 'TEST', subjects: ['foo'] }, ['foo', 'foo']);
    await js.consumer('TEST', { durable_name: 'CONSUMER', deliver_policy: 'new' });
    expect((await wire.request(RESET, { seq: 1 })).error).toEqual({
      code: 400,
      err_code: 10204,
      description: 'invalid reset: not allowed',
    });
    expect(await wire.request(RESET, '')).toMatchObject({ reset_seq: 3 });
    const bad = await wire.request(RESET, '{"seq":');
    expect((bad.error as Answer).err_code).toBe(10025);
    // The consumer answers for itself (as nats-server's own subscription): none, no answer.
    const inbox = wire.inbox();
    wire.pub('$JS.API.CONSUMER.RESET.TEST.NONE', '', inbox);
    await wire.flush();
    await wire.request('$JS.API.INFO');
    expect(wire.on(inbox)).toEqual([]);
  });
});
