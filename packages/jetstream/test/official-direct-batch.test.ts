/**
 * The official JetStream client's batch direct gets (@nats-io/jetstream 3: `direct.getBatch`
 * and `direct.getLastMessagesFor`, nats-server 2.11's JS_BATCH_DIRECT_GET) against
 * slipstream-server: the messages with their pending count and previous sequence, ended by the
 * server's `204 EOB`. The client gates them on the server version: it enables them from
 * 2.11.0 on, which our server's INFO (2.12.0) passes.
 */
import { type JetStreamManager, jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ourServers, uniqueStream, useJetStreamServer } from './servers.js';

type Connection = Awaited<ReturnType<typeof connect>>;
type Batch = Awaited<ReturnType<JetStreamManager['direct']['getBatch']>>;

/** Each message of a batch as [seq, subject, data, pending, previous sequence]. */
async function all(batch: Batch) {
  const got: Array<[number, string, string, number, number]> = [];
  for await (const m of batch) got.push([m.seq, m.subject, m.string(), m.pending, m.lastSequence]);
  return got;
}

describe.each(ourServers)('official client, 2.11 batch direct get, against $name', (kind) => {
  const server = useJetStreamServer(kind);
  let nc: Connection;
  let jsm: JetStreamManager;
  let name: string;
  beforeAll(async () => {
    nc = await connect({ servers: server.url() });
    jsm = await jetstreamManager(nc);
    name = uniqueStream('DG');
    await jsm.streams.add({ name, subjects: [`${name}.>`], allow_direct: true });
    const js = jetstream(nc);
    for (const [i, subject] of ['a', 'b', 'a', 'c', 'b'].entries()) {
      await js.publish(`${name}.${subject}`, `m${i + 1}`);
    }
  });
  afterAll(() => nc?.close());

  it('reads a batch from a sequence, and one filtered by subject', async () => {
    expect(await all(await jsm.direct.getBatch(name, { seq: 2, batch: 3 }))).toEqual([
      [2, `${name}.b`, 'm2', 4, 0],
      [3, `${name}.a`, 'm3', 3, 2],
      [4, `${name}.c`, 'm4', 2, 3],
    ]);
    const filtered = await jsm.direct.getBatch(name, { seq: 1, next_by_subj: `${name}.b` });
    expect(await all(filtered)).toEqual([
      [2, `${name}.b`, 'm2', 2, 0],
      [5, `${name}.b`, 'm5', 1, 2],
    ]);
  });

  it('reads a batch from a start time', async () => {
    // The stored time to the nanosecond (a Date would round it down to the millisecond).
    const third = await jsm.direct.getMessage(name, { seq: 3 });
    const batch = await jsm.direct.getBatch(name, { start_time: third!.timestamp, batch: 2 });
    expect((await all(batch)).map(([seq]) => seq)).toEqual([3, 4]);
  });

  it('reads the last message of each subject, bounded by a sequence', async () => {
    const lasts = await jsm.direct.getLastMessagesFor(name, { multi_last: [`${name}.>`] });
    expect((await all(lasts)).map(([seq, , data]) => [seq, data])).toEqual([
      [3, 'm3'],
      [4, 'm4'],
      [5, 'm5'],
    ]);
    const upTo = await jsm.direct.getLastMessagesFor(name, {
      multi_last: [`${name}.a`, `${name}.b`],
      up_to_seq: 2,
    });
    expect((await all(upTo)).map(([seq]) => seq)).toEqual([1, 2]);
  });
});
