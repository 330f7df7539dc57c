/**
 * DIRECT.GET batches and multi-last (nats-server 2.11): every reply message with its headers
 * and the closing `204 EOB` status, as nats-server v2.11.0's stream.go (getDirectRequest,
 * getDirectMulti) writes them; and the 2.11 fields on STREAM.MSG.GET. nats-server 2.9.10
 * (the reference installed here) has none of this, so the expected replies are written out.
 * The single-message answers stay as 2.9.10 sends them, compared side by side at the end.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ConsumerTarget,
  ConsumerWire,
  sleep,
  startOurs,
  startReference,
  type WireMessage,
} from './jetstream-consumer-wire.js';
import { RawClient } from './raw-client.js';

/** A reply as comparable lines: the status line and the headers (times as `T`), then the data. */
function shown(m: WireMessage): string[] {
  const lines = (m.headers ?? '')
    .split('\r\n')
    .filter((line) => line !== '')
    .map((line) => line.replace(/^Nats-Time-Stamp: .*/, 'Nats-Time-Stamp: T'));
  return [...lines, ...(m.data ? [`data: ${m.data}`] : [])];
}

/**
 * Sends a direct get and collects its replies: one, or for a batch up to a status-only one
 * (its EOB or the error that replaced the batch).
 */
async function directGet(
  wire: ConsumerWire,
  body: unknown,
  subject = '$JS.API.DIRECT.GET.S',
): Promise<string[][]> {
  const inbox = wire.inbox();
  wire.pub(subject, body, inbox);
  const isBatch =
    typeof body === 'object' && body !== null && ('batch' in body || 'multi_last' in body);
  const ended = () => wire.on(inbox).some((m) => /^NATS\/1\.0 \d/.test(m.headers ?? '') && !m.data);
  while (isBatch && !ended()) {
    const before = wire.on(inbox).length;
    if ((await wire.received(inbox, before + 1)).length === before) break;
  }
  if (!isBatch) await wire.received(inbox, 1);
  return wire.on(inbox).map(shown);
}

/** What a batch message's headers say besides the stream and time. */
const batched = (subject: string, seq: number, pending: number, last: number, data: string) => [
  'NATS/1.0',
  'Nats-Stream: S',
  `Nats-Subject: ${subject}`,
  `Nats-Sequence: ${seq}`,
  'Nats-Time-Stamp: T',
  `Nats-Num-Pending: ${pending}`,
  `Nats-Last-Sequence: ${last}`,
  `data: ${data}`,
];
/** The same with the stored message's own header first. */
const batchedRed = (subject: string, seq: number, pending: number, last: number, data: string) => {
  const [status, ...rest] = batched(subject, seq, pending, last, data);
  return [status!, 'Colour: red', ...rest];
};
const eob = (pending: number, last: number, upTo?: number) => [
  ['NATS/1.0 204 EOB', `Nats-Num-Pending: ${pending}`, `Nats-Last-Sequence: ${last}`].concat(
    upTo === undefined ? [] : [`Nats-UpTo-Sequence: ${upTo}`],
  ),
];
const status = (line: string) => [[`NATS/1.0 ${line}`]];

describe('DIRECT.GET batches as nats-server 2.11', () => {
  let target: ConsumerTarget;
  let wire: ConsumerWire;
  const times: string[] = [];

  beforeAll(async () => {
    target = await startOurs();
    wire = await ConsumerWire.connect(target.port);
    await wire.request('$JS.API.STREAM.CREATE.S', {
      name: 'S',
      subjects: ['s.>'],
      allow_direct: true,
    });
    // 1 s.a, 2 s.b, 3 s.a (with a header), 4 s.c, 5 s.b, 6 s.d (deleted below).
    const raw = await RawClient.connectAndGreet(target.port);
    await raw.send('CONNECT {"verbose":false,"headers":true}\r\n');
    const header = 'NATS/1.0\r\nColour: red\r\n\r\n';
    for (const [subject, data, headers = ''] of [
      ['s.a', 'one'],
      ['s.b', 'two'],
      ['s.a', 'three', header],
      ['s.c', 'four'],
      ['s.b', 'five'],
      ['s.d', 'six'],
    ]) {
      const size = headers.length + data!.length;
      await raw.send(
        headers
          ? `HPUB ${subject} ${headers.length} ${size}\r\n${headers}${data}\r\n`
          : `PUB ${subject} ${size}\r\n${data}\r\n`,
      );
      await raw.sync();
      // Distinct store times, so that a start time names one message.
      await sleep(3);
    }
    raw.close();
    await wire.request('$JS.API.STREAM.MSG.DELETE.S', { seq: 6 });
    for (let seq = 1; seq <= 5; seq++) {
      const got = await wire.request('$JS.API.STREAM.MSG.GET.S', { seq });
      times.push((got.message as { time: string }).time);
    }
  });
  afterAll(async () => {
    wire?.close();
    await target?.stop();
  });

  it('sends a batch from a sequence with what is pending and the previous sequence, then EOB', async () => {
    expect(await directGet(wire, { seq: 1, batch: 3 })).toEqual([
      batched('s.a', 1, 5, 0, 'one'),
      batched('s.b', 2, 4, 1, 'two'),
      batchedRed('s.a', 3, 3, 2, 'three'),
      ...eob(2, 3),
    ]);
  });

  it('steps over deleted messages and ends where the stream ends', async () => {
    expect(await directGet(wire, { seq: 4, batch: 10 })).toEqual([
      batched('s.c', 4, 2, 0, 'four'),
      batched('s.b', 5, 1, 4, 'five'),
      ...eob(0, 5),
    ]);
  });

  it('answers a batch starting on a deleted or missing sequence with 404 alone', async () => {
    expect(await directGet(wire, { seq: 6, batch: 2 })).toEqual(status('404 Message Not Found'));
    expect(await directGet(wire, { seq: 99, batch: 2 })).toEqual(status('404 Message Not Found'));
  });

  it('filters a batch with next_by_subj, wildcards included', async () => {
    expect(await directGet(wire, { next_by_subj: 's.b', batch: 5 })).toEqual([
      batched('s.b', 2, 2, 0, 'two'),
      batched('s.b', 5, 1, 2, 'five'),
      ...eob(0, 5),
    ]);
    const wild = await directGet(wire, { seq: 3, next_by_subj: 's.*', batch: 2 });
    expect(wild.map((lines) => lines.find((line) => line.startsWith('Nats-Sequence')))).toEqual([
      'Nats-Sequence: 3',
      'Nats-Sequence: 4',
      undefined,
    ]);
    expect(wild[2]).toEqual(eob(1, 4)[0]);
  });

  it('stops once max_bytes is reached, after the message that reached it', async () => {
    // Subject + payload: 3 + 3 bytes each for the first two.
    expect(await directGet(wire, { seq: 1, batch: 5, max_bytes: 7 })).toEqual([
      batched('s.a', 1, 5, 0, 'one'),
      batched('s.b', 2, 4, 1, 'two'),
      ...eob(3, 2),
    ]);
  });

  it('starts a batch at start_time', async () => {
    expect(await directGet(wire, { start_time: times[3], batch: 1 })).toEqual([
      batched('s.c', 4, 2, 0, 'four'),
      ...eob(1, 4),
    ]);
  });

  it('sends the last message of each subject for multi_last, in sequence order', async () => {
    expect(await directGet(wire, { multi_last: ['s.b', 's.a'] })).toEqual([
      batchedRed('s.a', 3, 1, 0, 'three'),
      batched('s.b', 5, 0, 3, 'five'),
      ...eob(0, 5, 6),
    ]);
  });

  it('bounds multi_last by up_to_seq or up_to_time, and by batch and seq', async () => {
    // The last of s.a and s.b are above 2: their earlier messages are found; s.c has none.
    expect(await directGet(wire, { multi_last: ['s.*'], up_to_seq: 2 })).toEqual([
      batched('s.a', 1, 1, 0, 'one'),
      batched('s.b', 2, 0, 1, 'two'),
      ...eob(0, 2, 2),
    ]);
    // Before the time of message 4: up to 3.
    expect(await directGet(wire, { multi_last: ['s.*'], up_to_time: times[3] })).toEqual([
      batched('s.b', 2, 1, 0, 'two'),
      batchedRed('s.a', 3, 0, 2, 'three'),
      ...eob(0, 3, 3),
    ]);
    expect(await directGet(wire, { multi_last: ['s.>'], batch: 1 })).toEqual([
      batchedRed('s.a', 3, 2, 0, 'three'),
      ...eob(1, 3, 6),
    ]);
    expect(await directGet(wire, { multi_last: ['s.>'], seq: 4 })).toEqual([
      batched('s.c', 4, 1, 0, 'four'),
      batched('s.b', 5, 0, 4, 'five'),
      ...eob(0, 5, 6),
    ]);
  });

  it('answers multi_last without a match with 404 No Results', async () => {
    expect(await directGet(wire, { multi_last: ['x.*'] })).toEqual(status('404 No Results'));
  });

  it('refuses what nats-server 2.11 refuses, with 408', async () => {
    expect(await directGet(wire, { batch: 5 })).toEqual(status('408 Empty Request'));
    expect(await directGet(wire, { up_to_seq: 5 })).toEqual(status('408 Empty Request'));
    for (const body of [
      { last_by_subj: 's.a', batch: 2 },
      { last_by_subj: 's.a', multi_last: ['s.a'] },
      { next_by_subj: 's.a', multi_last: ['s.a'] },
      { seq: 1, start_time: '2024-01-01T00:00:00Z' },
      { last_by_subj: 's.a', start_time: '2024-01-01T00:00:00Z' },
      { multi_last: ['s.a'], up_to_seq: 2, up_to_time: '2024-01-01T00:00:00Z' },
    ]) {
      expect(await directGet(wire, body), JSON.stringify(body)).toEqual(status('408 Bad Request'));
    }
    // The subject names the message: no body, and so no batch fields, is allowed.
    expect(await directGet(wire, { batch: 2 }, '$JS.API.DIRECT.GET.S.s.a')).toEqual(
      status('408 Bad Request'),
    );
  });

  it('takes start_time on a single get and on STREAM.MSG.GET, and refuses batches there', async () => {
    expect(await directGet(wire, { start_time: times[1] })).toEqual([
      batched('s.b', 2, 0, 0, 'two').filter((line) => !/Num-Pending|Last-Sequence/.test(line)),
    ]);
    const got = await wire.request('$JS.API.STREAM.MSG.GET.S', {
      start_time: times[1],
      next_by_subj: 's.a',
    });
    expect((got.message as { seq: number }).seq).toBe(3);
    for (const body of [
      { seq: 1, batch: 2 },
      { seq: 1, max_bytes: 10 },
      { seq: 1, start_time: times[0] },
    ]) {
      const refused = await wire.request('$JS.API.STREAM.MSG.GET.S', body);
      expect((refused.error as { err_code: number }).err_code, JSON.stringify(body)).toBe(10003);
    }
  });
});

/** Runs `use` on a fresh server with a direct-get stream `name` capturing `<name lowercase>.>`. */
async function withDirectStream<T>(
  start: () => Promise<ConsumerTarget>,
  name: string,
  use: (wire: ConsumerWire) => Promise<T>,
): Promise<T> {
  const target = await start();
  const wire = await ConsumerWire.connect(target.port);
  try {
    const subjects = [`${name.toLowerCase()}.>`];
    await wire.request(`$JS.API.STREAM.CREATE.${name}`, { name, subjects, allow_direct: true });
    return await use(wire);
  } finally {
    wire.close();
    await target.stop();
  }
}

describe('DIRECT.GET multi_last limit', () => {
  it('answers 413 Too Many Results past 1024 subjects', async () => {
    await withDirectStream(startOurs, 'M', async (wire) => {
      for (let i = 0; i < 1025; i++) wire.pub(`m.${i}`, 'x');
      await wire.flush();
      const many = await directGet(wire, { multi_last: ['m.>'] }, '$JS.API.DIRECT.GET.M');
      expect(many).toEqual(status('413 Too Many Results'));
      const fewer = await directGet(wire, { multi_last: ['m.1', 'm.2'] }, '$JS.API.DIRECT.GET.M');
      expect(fewer).toHaveLength(3);
    });
  });
});

describe('single DIRECT.GET answers stay those of nats-server 2.9.10', () => {
  it('answers by seq, by last subject (body and subject form), next_by_subj and errors alike', async () => {
    const transcripts: string[][][][] = [];
    for (const start of [startReference, startOurs]) {
      const transcript = await withDirectStream(start, 'S', async (wire) => {
        for (const subject of ['s.a', 's.b', 's.a']) wire.pub(subject, subject);
        await wire.flush();
        const replies: string[][][] = [];
        for (const body of [
          { seq: 2 },
          { last_by_subj: 's.a' },
          { next_by_subj: 's.a', seq: 2 },
          { seq: 9 },
          {},
          { seq: 1, last_by_subj: 's.a' },
          '{',
        ]) {
          replies.push(await directGet(wire, body));
        }
        replies.push(await directGet(wire, '', '$JS.API.DIRECT.GET.S.s.b'));
        replies.push(await directGet(wire, '', '$JS.API.DIRECT.GET.S'));
        return replies;
      });
      transcripts.push(transcript);
    }
    expect(transcripts[1]).toEqual(transcripts[0]);
  });
});
