/**
 * Consumer state outlives SIGKILL: a server (the built dist/, in a child process) is killed at
 * a random moment while a client pulls and acks with confirmations, then restarted on the
 * same store, several times. Every ack the server confirmed must stay acked (its message is
 * never delivered again), and every message not confirmed must still come. nats-server 2.9.10
 * writes consumer state lazily and fails the first count.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterEach, expect, it } from 'vitest';
import { ConsumerWire, type WireMessage } from './jetstream-consumer-wire.js';

const builtServer = fileURLToPath(new URL('../dist/index.js', import.meta.url));
const CYCLES = Number(process.env.CONSUMER_CRASH_CYCLES ?? 3);
const MESSAGES = 300;

const childSource = (storeDir: string) => `
import { silentLogger, startServer } from ${JSON.stringify(pathToFileURL(builtServer).href)};
const server = await startServer({ host: '127.0.0.1', port: 0, logger: silentLogger,
  jetstream: { storeDir: ${JSON.stringify(storeDir)} } });
process.stdout.write('port ' + server.port + '\\n');
`;

let child: ChildProcess | undefined;
let dir: string;

afterEach(() => {
  child?.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

function startChild(script: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [script], { stdio: ['ignore', 'pipe', 'pipe'] });
    child = proc;
    let stderr = '';
    proc.stderr!.on('data', (chunk) => (stderr += chunk));
    proc.stdout!.on('data', (chunk: Buffer) => {
      const match = /port (\d+)/.exec(chunk.toString());
      if (match) resolve(Number(match[1]));
    });
    proc.on('exit', (code, signal) => {
      if (signal !== 'SIGKILL') reject(new Error(`server exited (${code}): ${stderr}`));
    });
  });
}

/** Stream sequence of a delivered message, from its ack subject. */
const seqOf = (m: WireMessage) => Number(m.reply!.split('.')[5]);

/**
 * Pulls and acks with confirmations until the connection dies or nothing more comes; every
 * delivery is reported to `delivered`, every ack sent to `acked`, every confirmed one to
 * `confirmed`.
 */
async function consume(
  wire: ConsumerWire,
  delivered: number[],
  acked: Set<number>,
  confirmed: Set<number>,
) {
  for (;;) {
    const inbox = wire.inbox();
    wire.pub('$JS.API.CONSUMER.MSG.NEXT.CRASH.C', { batch: 20, expires: 1e9 }, inbox);
    const got = (await wire.received(inbox, 20, 1_500)).filter((m) => m.reply);
    if (got.length === 0) return;
    for (const m of got) {
      const seq = seqOf(m);
      delivered.push(seq);
      const confirm = wire.inbox();
      wire.pub(m.reply!, '+ACK', confirm);
      acked.add(seq);
      void wire.received(confirm, 1, 3_000).then((answers) => {
        if (answers.length > 0) confirmed.add(seq);
      });
    }
  }
}

it(`never redelivers a confirmed ack after SIGKILL, and loses no unacked message (${CYCLES} cycles)`, async () => {
  expect(existsSync(builtServer), 'build @slipstream/server first (dist/ is missing)').toBe(true);
  dir = mkdtempSync(join(tmpdir(), 'slipstream-consumer-crash-'));
  const script = join(dir, 'server.mjs');
  writeFileSync(script, childSource(join(dir, 'store')));
  let wire = await ConsumerWire.connect(await startChild(script));
  await wire.request('$JS.API.STREAM.CREATE.CRASH', { name: 'CRASH', subjects: ['crash.*'] });
  for (let i = 1; i <= MESSAGES; i++) await wire.request(`crash.${i % 5}`, `m${i}`);
  await wire.request('$JS.API.CONSUMER.DURABLE.CREATE.CRASH.C', {
    stream_name: 'CRASH',
    config: { durable_name: 'C', ack_policy: 'explicit', ack_wait: 5e8 },
  });
  const acked = new Set<number>();
  const confirmed = new Set<number>();
  const counts: {
    confirmedBefore: number;
    ackedUnconfirmed: number;
    redeliveredConfirmed: number;
    unackedRedelivered: number;
  }[] = [];
  let first = 1;
  for (let cycle = 0; cycle < CYCLES; cycle++) {
    const delivered: number[] = [];
    const killer = setTimeout(() => child?.kill('SIGKILL'), 100 + Math.random() * 400);
    await consume(wire, delivered, acked, confirmed);
    clearTimeout(killer);
    child?.kill('SIGKILL');
    wire.close();
    const confirmedBefore = new Set(confirmed);
    const ackedBefore = new Set(acked);
    wire = await ConsumerWire.connect(await startChild(script));
    // Everything not acked comes again (pending ones after their ack wait).
    const after: number[] = [];
    await consume(wire, after, acked, confirmed);
    const redeliveredConfirmed = after.filter((seq) => confirmedBefore.has(seq)).length;
    const unacked: number[] = [];
    for (let seq = first; seq < first + MESSAGES; seq++)
      if (!ackedBefore.has(seq)) unacked.push(seq);
    counts.push({
      confirmedBefore: confirmedBefore.size,
      ackedUnconfirmed: ackedBefore.size - confirmedBefore.size,
      redeliveredConfirmed,
      unackedRedelivered: unacked.filter((seq) => confirmed.has(seq)).length,
    });
    expect(redeliveredConfirmed).toBe(0);
    expect(unacked.filter((seq) => !confirmed.has(seq))).toEqual([]);
    const info = await wire.request('$JS.API.CONSUMER.INFO.CRASH.C');
    expect(info).toMatchObject({ num_ack_pending: 0, num_pending: 0 });
    if (cycle < CYCLES - 1) {
      // A fresh consumer for the next cycle, on new messages.
      await wire.request('$JS.API.CONSUMER.DELETE.CRASH.C');
      await wire.request('$JS.API.CONSUMER.DURABLE.CREATE.CRASH.C', {
        stream_name: 'CRASH',
        config: { durable_name: 'C', ack_policy: 'explicit', ack_wait: 5e8, deliver_policy: 'new' },
      });
      for (let i = 1; i <= MESSAGES; i++) await wire.request(`crash.${i % 5}`, `n${i}`);
      first += MESSAGES;
    }
  }
  wire.close();
  console.log('consumer crash cycles', JSON.stringify(counts));
}, 120_000);
