/**
 * Each file of a stopped server's stream damaged in one known way, then the server restarted on
 * it: a stream whose messages.db still opens answers STREAM.INFO with its intact messages and the
 * damage in `state.lost` (nats-server's LostStreamData), its damaged files moved aside into
 * `damaged-<time>/` and itself writable again; one that cannot be opened (meta.json damaged, the
 * database's header damaged) is offline (10118) and left on disk as it was, never "not found".
 * The seeded campaign of random flips and truncations is tooling/reliability's damage section.
 */
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { type NatsServer, silentLogger, startServer } from '../src/index.js';
import type { InternalClient } from '../src/internal-client.js';
import { internalClientOf } from '../src/server.js';

const MESSAGES = 200;
const decoder = new TextDecoder();
const encoder = new TextEncoder();
let inboxes = 0;

// biome-ignore lint/suspicious/noExplicitAny: API answers are checked field by field
type Reply = Record<string, any>;

function request(client: InternalClient, subject: string, body = ''): Promise<Reply> {
  const inbox = `_INBOX.damaged.${++inboxes}`;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no reply to ${subject}`)), 5_000);
    const sub = client.subscribe(inbox, (message) => {
      clearTimeout(timer);
      client.unsubscribe(sub);
      resolve(JSON.parse(decoder.decode(message.payload)));
    });
    client.publish(subject, encoder.encode(body), { reply: inbox });
  });
}

const payloadOf = (i: number) => `message-${String(i).padStart(4, '0')}-${'p'.repeat(400)}`;

describe('a damaged stream file found at start', () => {
  let server: NatsServer | undefined;
  let dir: string;
  let errors: string[];
  afterEach(async () => {
    await server?.close();
    server = undefined;
    await rm(dir, { recursive: true, force: true });
  });

  const streamDir = () => join(dir, 'jetstream', '%24G', 'streams', 'S');
  const database = () => join(streamDir(), 'messages.db');

  async function start(): Promise<InternalClient> {
    errors = [];
    server = await startServer({
      host: '127.0.0.1',
      port: 0,
      httpPort: 0,
      logger: { ...silentLogger, error: (line: string) => errors.push(line) },
      jetstream: { storeDir: dir },
    });
    return internalClientOf(server);
  }

  /** A stream S of MESSAGES messages with an acking durable consumer, then the server stopped. */
  async function storedAndStopped(): Promise<void> {
    dir = await mkdtemp(join(tmpdir(), 'slipstream-damaged-'));
    const client = await start();
    const config = JSON.stringify({ name: 'S', subjects: ['s.>'] });
    expect((await request(client, '$JS.API.STREAM.CREATE.S', config)).error).toBeUndefined();
    for (let i = 1; i <= MESSAGES; i++) {
      expect((await request(client, 's.m', payloadOf(i))).seq).toBe(i);
    }
    const consumer = JSON.stringify({
      stream_name: 'S',
      config: { durable_name: 'C', ack_policy: 'explicit' },
    });
    expect((await request(client, '$JS.API.CONSUMER.CREATE.S.C', consumer)).error).toBeUndefined();
    await server!.close();
    server = undefined;
  }

  /**
   * As storedAndStopped, but the stream's files are left as a killed server leaves them: copied
   * at once after the last acknowledgement, with the WAL that still holds the messages.
   */
  async function storedAndKilled(): Promise<void> {
    const crashImage = join(tmpdir(), `slipstream-crash-image-${process.pid}-${inboxes}`);
    dir = await mkdtemp(join(tmpdir(), 'slipstream-damaged-'));
    const client = await start();
    const config = JSON.stringify({ name: 'S', subjects: ['s.>'] });
    expect((await request(client, '$JS.API.STREAM.CREATE.S', config)).error).toBeUndefined();
    for (let i = 1; i <= MESSAGES; i++) {
      expect((await request(client, 's.m', payloadOf(i))).seq).toBe(i);
    }
    // Before the idle checkpoint (100 ms) folds the WAL into the database.
    rmSync(crashImage, { recursive: true, force: true });
    mkdirSync(crashImage);
    for (const name of ['messages.db', 'messages.db-wal']) {
      copyFileSync(join(streamDir(), name), join(crashImage, name));
    }
    await server!.close();
    server = undefined;
    for (const name of ['messages.db', 'messages.db-wal', 'messages.db-shm']) {
      rmSync(join(streamDir(), name), { force: true });
    }
    for (const name of ['messages.db', 'messages.db-wal']) {
      copyFileSync(join(crashImage, name), join(streamDir(), name));
    }
    rmSync(crashImage, { recursive: true, force: true });
    expect(statSync(`${database()}-wal`).size).toBeGreaterThan(MESSAGES * 400);
  }

  /** Every message is served exactly as stored or not at all; the served ones, counted. */
  async function servedIntact(client: InternalClient, upTo: number): Promise<number[]> {
    const served: number[] = [];
    for (let seq = 1; seq <= upTo; seq++) {
      const got = await request(client, '$JS.API.STREAM.MSG.GET.S', JSON.stringify({ seq }));
      if (got.error) {
        expect(got.error).toMatchObject({ err_code: 10037 });
        continue;
      }
      expect(decoder.decode(Buffer.from(got.message.data, 'base64'))).toBe(payloadOf(seq));
      served.push(seq);
    }
    return served;
  }

  /** The damaged files sit in one damaged-<time>/ directory beside the new messages.db. */
  function movedAside(): string {
    const aside = readdirSync(streamDir()).filter((name) => name.startsWith('damaged-'));
    expect(aside).toHaveLength(1);
    return join(streamDir(), aside[0]!);
  }

  async function writable(client: InternalClient): Promise<void> {
    const ack = await request(client, 's.m', 'after');
    expect(ack.error).toBeUndefined();
    expect(ack.seq).toBeGreaterThan(MESSAGES);
  }

  const lastSequence = () => join(streamDir(), 'messages.last');
  const truncations = [
    { name: 'to half', length: (size: number) => Math.floor(size / 2) },
    // Most pages gone, the interior ones that name the newest keys too.
    { name: 'to its first page and a bit', length: () => 4096 + 500 },
    // The newest rows' page keeps its header and cell pointers; SQLite reads the rest as zeros
    // and still finds every key before them: they were neither served nor named lost, and their
    // sequences were handed out again.
    { name: 'inside its last page', length: (size: number) => size - 4096 + 300 },
  ];
  const records = [
    { name: 'messages.last', remove: false },
    { name: 'a store from before messages.last', remove: true },
  ];
  for (const truncation of truncations)
    for (const record of records)
      it(`truncated messages.db (${truncation.name}, ${record.name}): the stream answers with what is intact, the rest as lost`, async () => {
        await storedAndStopped();
        const size = statSync(database()).size;
        const length = truncation.length(size);
        truncateSync(database(), length);
        if (record.remove) rmSync(lastSequence(), { force: true });
        const client = await start();

        const info = await request(client, '$JS.API.STREAM.INFO.S');
        expect(info.error).toBeUndefined();
        const served = await servedIntact(client, MESSAGES);
        expect(info.state.messages).toBe(served.length);
        // The newest messages' page is gone: their sequences are skipped, never handed out again.
        expect(info.state.last_seq).toBeGreaterThanOrEqual(MESSAGES);
        // Every acknowledged message not served is reported lost, the newest ones past every key
        // the file still names too.
        const lost = info.state.lost as { msgs: number[]; bytes: number };
        expect(lost.msgs.length).toBeGreaterThan(0);
        for (let seq = 1; seq <= MESSAGES; seq++) {
          expect(served.includes(seq) || lost.msgs.includes(seq)).toBe(true);
        }

        expect(statSync(join(movedAside(), 'messages.db')).size).toBe(length);
        expect(errors.join('\n')).toContain("JetStream stream '$G > S' had a damaged file");
        expect((await fetch(`${server!.httpUrl}/healthz`)).status).toBe(503);
        await writable(client);
      });

  it('a flipped bit in a stored payload: that message is lost, the others served', async () => {
    await storedAndStopped();
    const bytes = readFileSync(database());
    const at = bytes.indexOf(payloadOf(77));
    expect(at).toBeGreaterThan(0);
    bytes[at + 20]! ^= 0x04;
    writeFileSync(database(), bytes);
    const client = await start();

    const info = await request(client, '$JS.API.STREAM.INFO.S');
    expect(info.state).toMatchObject({ messages: MESSAGES - 1, lost: { msgs: [77] } });
    expect(info.state.lost.bytes).toBeGreaterThan(400);
    expect(await servedIntact(client, MESSAGES)).toHaveLength(MESSAGES - 1);
    expect(existsSync(join(movedAside(), 'messages.db'))).toBe(true);
    // The consumer came through the rebuild.
    const consumer = await request(client, '$JS.API.CONSUMER.INFO.S.C');
    expect(consumer.error).toBeUndefined();
    await writable(client);
  });

  /** Flips the bit that turns the subject s.> into r.>, which leaves valid JSON. */
  function flipSubject(file: string): Buffer {
    const bytes = readFileSync(file);
    bytes[bytes.indexOf('"s.>"') + 1]! ^= 0x01;
    writeFileSync(file, bytes);
    return bytes;
  }

  it('a flipped bit in meta.json: rewritten from its copy, the stream served as it was', async () => {
    await storedAndStopped();
    const meta = join(streamDir(), 'meta.json');
    const damaged = flipSubject(meta);
    const client = await start();

    const info = await request(client, '$JS.API.STREAM.INFO.S');
    expect(info.error).toBeUndefined();
    expect(info.config.subjects).toEqual(['s.>']);
    expect(info.state.messages).toBe(MESSAGES);
    expect(readFileSync(meta)).toEqual(readFileSync(join(streamDir(), 'meta.copy.json')));
    expect(readFileSync(join(movedAside(), 'meta.json'))).toEqual(damaged);
    expect(errors.join('\n')).toContain('meta.json is damaged (checksum mismatch)');
    const health = (await (await fetch(`${server!.httpUrl}/healthz`)).json()) as Reply;
    expect(health.error).toContain("JetStream stream '$G > S' is damaged");
    await writable(client);
  });

  it('both meta files damaged: offline (10118), never not found, files left as they are', async () => {
    await storedAndStopped();
    const meta = flipSubject(join(streamDir(), 'meta.json'));
    const copy = flipSubject(join(streamDir(), 'meta.copy.json'));
    const before = readFileSync(database());
    const client = await start();

    const info = await request(client, '$JS.API.STREAM.INFO.S');
    expect(info.error).toEqual({ code: 500, err_code: 10118, description: 'stream is offline' });
    const names = await request(client, '$JS.API.STREAM.NAMES');
    expect(names.streams).toEqual(['S']);
    const list = await request(client, '$JS.API.STREAM.LIST');
    expect(list.missing).toEqual(['S']);
    expect(list.offline.S).toContain('meta.json is damaged');
    expect(readFileSync(join(streamDir(), 'meta.json'))).toEqual(meta);
    expect(readFileSync(join(streamDir(), 'meta.copy.json'))).toEqual(copy);
    expect(readFileSync(database())).toEqual(before);
    const health = (await (await fetch(`${server!.httpUrl}/healthz`)).json()) as Reply;
    expect(health.error).toContain("JetStream stream '$G > S' is damaged");
    // The operator may still delete it.
    expect(await request(client, '$JS.API.STREAM.DELETE.S')).toMatchObject({ success: true });
    expect(existsSync(streamDir())).toBe(false);
  });

  it('a damaged database header: offline (10118), the file left as it is', async () => {
    await storedAndStopped();
    const bytes = readFileSync(database());
    bytes[3]! ^= 0x10;
    writeFileSync(database(), bytes);
    const client = await start();

    const info = await request(client, '$JS.API.STREAM.INFO.S');
    expect(info.error).toMatchObject({ err_code: 10118 });
    expect(readFileSync(database())).toEqual(bytes);
    expect(readdirSync(streamDir()).filter((name) => name.startsWith('damaged-'))).toEqual([]);
  });

  it('a flipped bit in a WAL frame: the messages SQLite would drop are named lost', async () => {
    await storedAndKilled();
    const wal = readFileSync(`${database()}-wal`);
    const frameSize = 24 + wal.readUInt32BE(8);
    const frames = Math.floor((wal.length - 32) / frameSize);
    // A frame in the middle of the ones written: SQLite drops it and every one after it.
    const at = 32 + Math.floor(frames / 4) * frameSize + 24 + 200;
    wal[at]! ^= 0x20;
    writeFileSync(`${database()}-wal`, wal);
    const client = await start();

    const info = await request(client, '$JS.API.STREAM.INFO.S');
    expect(info.error).toBeUndefined();
    const served = await servedIntact(client, MESSAGES);
    const lost = info.state.lost as { msgs: number[] };
    expect(lost.msgs.length).toBeGreaterThan(0);
    // Every acknowledged message is served or named lost; none is handed out again.
    for (let seq = 1; seq <= MESSAGES; seq++) {
      expect(served.includes(seq) || lost.msgs.includes(seq)).toBe(true);
    }
    expect(errors.join('\n')).toContain('of the WAL');
    expect(existsSync(join(movedAside(), 'messages.db-wal'))).toBe(true);
    await writable(client);
  });

  /** Takes the first `count` messages through the consumer C and acks them, confirmed. */
  async function consumeAndAck(client: InternalClient, count: number): Promise<void> {
    const inbox = `_INBOX.damaged.fetch.${++inboxes}`;
    const delivered: string[] = [];
    const done = new Promise<void>((resolve) => {
      const sub = client.subscribe(inbox, (message) => {
        if (message.reply) delivered.push(message.reply);
        if (delivered.length === count) {
          client.unsubscribe(sub);
          resolve();
        }
      });
    });
    const next = JSON.stringify({ batch: count, expires: 5_000_000_000 });
    client.publish('$JS.API.CONSUMER.MSG.NEXT.S.C', encoder.encode(next), { reply: inbox });
    await done;
    // Confirmed acks: the server answers (an empty message) once the ack is stored.
    for (const reply of delivered) {
      const confirm = `_INBOX.damaged.ack.${++inboxes}`;
      await new Promise<void>((resolve) => {
        const sub = client.subscribe(confirm, () => {
          client.unsubscribe(sub);
          resolve();
        });
        client.publish(reply, encoder.encode('+ACK'), { reply: confirm });
      });
    }
  }

  /** Rewrites the consumer's saved row in place, as damage would: its checksums stay. */
  function changeConsumerRow(column: 'config' | 'state', change: (value: Reply) => void): void {
    const db = new Database(database());
    try {
      const row = db.prepare(`SELECT ${column} AS text FROM consumers WHERE name = 'C'`).get() as {
        text: string;
      };
      const value = JSON.parse(row.text) as Reply;
      change(value);
      db.prepare(`UPDATE consumers SET ${column} = ? WHERE name = 'C'`).run(JSON.stringify(value));
    } finally {
      db.close();
    }
  }

  async function consumedAndStopped(): Promise<void> {
    await storedAndStopped();
    const client = await start();
    await consumeAndAck(client, 50);
    const info = await request(client, '$JS.API.CONSUMER.INFO.S.C');
    expect(info.ack_floor.stream_seq).toBe(50);
    await server!.close();
    server = undefined;
  }

  it('damaged consumer state: the consumer starts over, never past a message it did not ack', async () => {
    await consumedAndStopped();
    // A flipped bit in the ack floor that leaves valid JSON: 50 acked would read as 58.
    changeConsumerRow('state', (state) => {
      state.a = [58, 58];
      state.d = [58, 58];
    });
    const client = await start();

    const info = await request(client, '$JS.API.CONSUMER.INFO.S.C');
    expect(info.error).toBeUndefined();
    expect(info.ack_floor.stream_seq).toBe(0);
    expect(info.num_pending).toBe(MESSAGES);
    expect(errors.join('\n')).toContain('consumers starting over (their state was damaged): C');
    expect((await fetch(`${server!.httpUrl}/healthz`)).status).toBe(503);
    expect((await request(client, '$JS.API.STREAM.INFO.S')).state.messages).toBe(MESSAGES);
  });

  it('a damaged consumer config: that consumer is reported lost, the stream served', async () => {
    await consumedAndStopped();
    changeConsumerRow('config', (config) => {
      config.filter_subject = 'r.>';
    });
    const client = await start();

    expect(await request(client, '$JS.API.CONSUMER.INFO.S.C')).toMatchObject({
      error: { err_code: 10014 },
    });
    expect(errors.join('\n')).toContain('consumers lost: C');
    expect((await request(client, '$JS.API.STREAM.INFO.S')).state.messages).toBe(MESSAGES);
  });

  it('a damaged WAL header: SQLite would ignore every frame; their messages are named lost', async () => {
    await storedAndKilled();
    const wal = readFileSync(`${database()}-wal`);
    wal[17]! ^= 0x01; // a bit of the first salt: the header's checksum no longer matches
    writeFileSync(`${database()}-wal`, wal);
    const client = await start();

    const info = await request(client, '$JS.API.STREAM.INFO.S');
    expect(info.error).toBeUndefined();
    const served = await servedIntact(client, MESSAGES);
    const lost = info.state.lost as { msgs: number[] };
    expect(lost.msgs.length).toBeGreaterThan(0);
    for (let seq = 1; seq <= MESSAGES; seq++) {
      expect(served.includes(seq) || lost.msgs.includes(seq)).toBe(true);
    }
    expect(errors.join('\n')).toContain('its WAL header is damaged');
    await writable(client);
  });

  it('a WAL cut short inside a frame: the frames before the cut served, the rest named lost', async () => {
    await storedAndKilled();
    const wal = `${database()}-wal`;
    const size = statSync(wal).size;
    const frameSize = 24 + readFileSync(wal).readUInt32BE(8);
    // Inside a frame, past the first quarter of those written: some messages are before it.
    const written = Math.floor((size - 32) / frameSize);
    const cut = 32 + Math.floor(written / 4) * frameSize + 17;
    truncateSync(wal, cut);
    const client = await start();

    const info = await request(client, '$JS.API.STREAM.INFO.S');
    expect(info.error).toBeUndefined();
    const served = await servedIntact(client, MESSAGES);
    expect(served.length).toBeGreaterThan(0);
    const lost = info.state.lost as { msgs: number[] };
    // Named from messages.last, exactly the ones not served.
    expect(lost.msgs).toEqual(
      Array.from({ length: MESSAGES }, (_, i) => i + 1).filter((seq) => !served.includes(seq)),
    );
    expect(info.state.last_seq).toBe(MESSAGES);
    expect(errors.join('\n')).toContain('the WAL is cut short');
    expect(statSync(join(movedAside(), 'messages.db-wal')).size).toBe(cut);
    expect((await fetch(`${server!.httpUrl}/healthz`)).status).toBe(503);
    await writable(client);
  });

  it('an empty messages.last (created, its first write lost to a power loss) is no damage', async () => {
    await storedAndStopped();
    truncateSync(lastSequence(), 0);
    const client = await start();

    const info = await request(client, '$JS.API.STREAM.INFO.S');
    expect(info.state).toMatchObject({ messages: MESSAGES, last_seq: MESSAGES });
    expect(errors).toEqual([]);
    expect((await fetch(`${server!.httpUrl}/healthz`)).status).toBe(200);
    expect(readFileSync(lastSequence()).readBigUInt64BE(0)).toBe(BigInt(MESSAGES));
  });

  it('a damaged messages.last: moved aside and written again from the database', async () => {
    await storedAndStopped();
    const bytes = readFileSync(lastSequence());
    bytes[7]! ^= 0x02;
    writeFileSync(lastSequence(), bytes);
    const client = await start();

    const info = await request(client, '$JS.API.STREAM.INFO.S');
    expect(info.state).toMatchObject({ messages: MESSAGES, last_seq: MESSAGES });
    expect(info.state.lost).toBeUndefined();
    expect(readFileSync(join(movedAside(), 'messages.last'))).toEqual(bytes);
    expect(readFileSync(lastSequence()).readBigUInt64BE(0)).toBe(BigInt(MESSAGES));
    expect(errors.join('\n')).toContain('messages.last is damaged (checksum mismatch)');
    await writable(client);
  });
});
