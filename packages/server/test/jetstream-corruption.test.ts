/**
 * Damage to a stream's file while the server is stopped (single bit flips at random offsets,
 * truncation at a random length) must be detected on restart: every message is either served
 * exactly as stored or refused with an error, never served changed; the damaged stream is
 * reported (logged naming the stream, /healthz unhealthy, and our stream_damaged advisory,
 * which nats-server 2.11 has no equivalent of); nothing on disk is deleted; the other stream and
 * core NATS serve normally. Seeded: CORRUPTION_SEED replays a run.
 */
import { existsSync, readFileSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type Logger, type NatsServer, silentLogger, startServer } from '../src/index.js';
import type { InternalClient } from '../src/internal-client.js';
import { internalClientOf } from '../src/server.js';

const seed = Number(process.env.CORRUPTION_SEED ?? Date.now() % 1_000_000_007);
const MESSAGES = 60;

function generator(start: number) {
  let state = start >>> 0 || 1;
  return (n: number) => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) % n;
  };
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();
let inboxes = 0;

interface Reply {
  error?: unknown;
  seq?: number;
  message: { seq: number; data: string };
}

function request(client: InternalClient, subject: string, body: string): Promise<Reply> {
  const inbox = `_INBOX.corruption.${++inboxes}`;
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

interface DamagedAdvisory {
  subject: string;
  type: string;
  stream: string;
  seqs?: number[];
  reason: string;
}

/** The stream_damaged advisories `client` receives from now on, as they arrive. */
function damagedAdvisories(client: InternalClient): DamagedAdvisory[] {
  const advisories: DamagedAdvisory[] = [];
  client.subscribe('$JS.EVENT.ADVISORY.STREAM.DAMAGED.>', (m) =>
    advisories.push({ subject: m.subject, ...JSON.parse(decoder.decode(m.payload)) }),
  );
  return advisories;
}

const payloadOf = (stream: string, i: number) => `${stream}-message-${i}-${'x'.repeat(i % 7)}`;
const streamDir = (root: string, name: string) => join(root, 'jetstream', '%24G', 'streams', name);

describe(`damaged stream files (seed ${seed})`, () => {
  let server: NatsServer | undefined;
  let dir: string;
  afterEach(async () => {
    await server?.close();
    await rm(dir, { recursive: true, force: true });
  });

  async function start(logger: Logger = silentLogger) {
    server = await startServer({
      host: '127.0.0.1',
      port: 0,
      logger,
      httpPort: 0,
      jetstream: { storeDir: dir },
    });
    return internalClientOf(server);
  }

  const random = generator(seed);
  const damages = [
    { name: 'a flipped bit inside a stored payload', damage: flipPayloadBit, detected: true },
    { name: 'one flipped bit', damage: (file: string) => flipBits(file, 1) },
    { name: 'eight flipped bits', damage: (file: string) => flipBits(file, 8) },
    {
      name: 'truncation',
      damage: (file: string) => truncateSync(file, random(statSync(file).size)),
    },
  ];

  /** Flips a bit of one message's payload, found by its text in the file; returns its seq. */
  function flipPayloadBit(file: string): number {
    const bytes = readFileSync(file);
    const seq = 1 + random(MESSAGES);
    const target = Buffer.from(payloadOf('BAD', seq));
    const at = bytes.indexOf(target);
    expect(at).toBeGreaterThan(0);
    bytes[at + random(target.length)]! ^= 1 << random(8);
    writeFileSync(file, bytes);
    return seq;
  }

  function flipBits(file: string, count: number) {
    const bytes = readFileSync(file);
    for (let i = 0; i < count; i++) {
      // Past SQLite's 100-byte header, which only tells whether the file opens at all.
      const offset = 100 + random(bytes.length - 100);
      bytes[offset]! ^= 1 << random(8);
    }
    writeFileSync(file, bytes);
  }

  for (const { name, damage, detected } of damages) {
    for (let trial = 0; trial < 3; trial++) {
      it(`${name} (trial ${trial + 1}): serves exactly what was stored or refuses it`, async () => {
        dir = await mkdtemp(join(tmpdir(), 'slipstream-corruption-'));
        let client = await start();
        for (const stream of ['GOOD', 'BAD']) {
          const created = await request(
            client,
            `$JS.API.STREAM.CREATE.${stream}`,
            JSON.stringify({ name: stream, subjects: [`${stream.toLowerCase()}.>`] }),
          );
          expect(created.error).toBeUndefined();
          for (let i = 1; i <= MESSAGES; i++) {
            const ack = await request(client, `${stream.toLowerCase()}.m`, payloadOf(stream, i));
            expect(ack.seq).toBe(i);
          }
        }
        await server!.close();

        const badFile = join(streamDir(dir, 'BAD'), 'messages.db');
        expect(existsSync(`${badFile}-wal`) && statSync(`${badFile}-wal`).size > 0).toBe(false);
        damage(badFile);

        const errors: string[] = [];
        client = await start({ ...silentLogger, error: (line: string) => errors.push(line) });
        // Found at start, before anyone could listen: the advisory waits for the first listener.
        const advisories = damagedAdvisories(client);

        for (let seq = 1; seq <= MESSAGES; seq++) {
          const got = await request(client, '$JS.API.STREAM.MSG.GET.GOOD', JSON.stringify({ seq }));
          expect(Buffer.from(got.message.data, 'base64').toString()).toBe(payloadOf('GOOD', seq));
        }
        let refused = 0;
        for (let seq = 1; seq <= MESSAGES; seq++) {
          const got = await request(client, '$JS.API.STREAM.MSG.GET.BAD', JSON.stringify({ seq }));
          if (got.error) {
            refused++;
            continue;
          }
          expect(got.message.seq).toBe(seq);
          expect(Buffer.from(got.message.data, 'base64').toString()).toBe(payloadOf('BAD', seq));
        }
        console.log(
          `${name} (trial ${trial + 1}): ${refused} of ${MESSAGES} refused; ${errors.length} errors logged`,
        );
        if (detected) expect(refused).toBeGreaterThan(0);
        if (refused > 0) {
          expect(errors.join('\n')).toContain("'$G > BAD'");
          expect(advisories.length).toBeGreaterThan(0);
        }
        for (const advisory of advisories) {
          expect(advisory).toMatchObject({
            subject: '$JS.EVENT.ADVISORY.STREAM.DAMAGED.BAD',
            type: 'io.nats.jetstream.advisory.v1.stream_damaged',
            account: '$G',
            stream: 'BAD',
            reason: expect.any(String),
          });
        }
        // Every refused message is named, by the start check or by the read that refused it.
        const named = new Set(advisories.flatMap((advisory) => advisory.seqs ?? []));
        if (detected) expect(named.size).toBeGreaterThanOrEqual(refused);
        // Health says so too (the quick JetStream check only asks whether JetStream runs).
        const health = await fetch(`${server!.httpUrl}/healthz`);
        const body = (await health.json()) as { status: string; error?: string };
        if (refused > 0) {
          expect(health.status).toBe(503);
          expect(body.error).toContain("JetStream stream '$G > BAD' is damaged");
        }
        const quick = await fetch(`${server!.httpUrl}/healthz?js-enabled-only=true`);
        expect(quick.status).toBe(200);
        expect(existsSync(badFile)).toBe(true);

        // Core NATS still flows.
        const echoed = new Promise<string>((resolve) =>
          client.subscribe('core.check', (m) => resolve(decoder.decode(m.payload))),
        );
        client.publish('core.check', encoder.encode('alive'));
        expect(await echoed).toBe('alive');
      });
    }
  }

  it('reports damage a read finds while the server runs: log, advisory, /healthz', async () => {
    dir = await mkdtemp(join(tmpdir(), 'slipstream-corruption-'));
    const errors: string[] = [];
    const client = await start({ ...silentLogger, error: (line: string) => errors.push(line) });
    const created = await request(
      client,
      '$JS.API.STREAM.CREATE.BAD',
      JSON.stringify({ name: 'BAD', subjects: ['bad.>'] }),
    );
    expect(created.error).toBeUndefined();
    for (let i = 1; i <= MESSAGES; i++) await request(client, 'bad.m', payloadOf('BAD', i));
    const advisories = damagedAdvisories(client);
    // Idle, the stream's WAL is checkpointed into its file, which the damage then hits.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const badFile = join(streamDir(dir, 'BAD'), 'messages.db');
    const seq = flipPayloadBit(badFile);
    const get = () => request(client, '$JS.API.STREAM.MSG.GET.BAD', JSON.stringify({ seq }));
    expect((await get()).error).toMatchObject({ err_code: 10051 });
    expect(advisories).toEqual([
      {
        subject: '$JS.EVENT.ADVISORY.STREAM.DAMAGED.BAD',
        type: 'io.nats.jetstream.advisory.v1.stream_damaged',
        id: expect.any(String),
        timestamp: expect.any(String),
        account: '$G',
        stream: 'BAD',
        seqs: [seq],
        reason: `stream "BAD" message ${seq} is damaged (checksum mismatch)`,
      },
    ]);
    expect(errors.join('\n')).toContain(`'$G > BAD': stream "BAD" message ${seq} is damaged`);
    const health = await fetch(`${server!.httpUrl}/healthz`);
    expect(health.status).toBe(503);
    // Reported once: the next read is refused again without another advisory.
    expect((await get()).error).toBeDefined();
    expect(advisories).toHaveLength(1);
  });

  it('forgets a damaged stream once it is deleted: /healthz is healthy again', async () => {
    dir = await mkdtemp(join(tmpdir(), 'slipstream-corruption-'));
    let client = await start();
    const config = JSON.stringify({ name: 'BAD', subjects: ['bad.>'] });
    expect((await request(client, '$JS.API.STREAM.CREATE.BAD', config)).error).toBeUndefined();
    for (let i = 1; i <= MESSAGES; i++) await request(client, 'bad.m', payloadOf('BAD', i));
    await server!.close();
    flipPayloadBit(join(streamDir(dir, 'BAD'), 'messages.db'));
    client = await start();
    expect((await fetch(`${server!.httpUrl}/healthz`)).status).toBe(503);
    const deleted = await request(client, '$JS.API.STREAM.DELETE.BAD', '');
    expect(deleted).toMatchObject({ success: true });
    // nats-server's single-server /healthz checks the stream directories still there
    // (v2.11.0 monitor.go:3432-3484): a deleted stream is not among them.
    const health = await fetch(`${server!.httpUrl}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok' });
  });
});
