/**
 * One damaged-file trial: a fresh server stores a stream of messages and an acking durable
 * consumer, stops (cleanly, or killed at once so that its write-ahead files are still there),
 * one file of the stream's directory is damaged, and the server starts again on it. Then every
 * acknowledged message is asked for and what the server answers is judged: served exactly as
 * stored, or reported (in the stream's `lost`, or the whole stream offline), never served
 * changed, never gone without a word.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { connect, type NatsConnection } from '@slipstream/client';
import { type RunningNatsServer, startNatsServer } from '@slipstream/test-servers';
import { type DamageKind, damageFile, seeded, storeFiles } from './damage.js';

/** A server put through the trials. */
export interface DamageTarget {
  readonly name: string;
  /** slipstream-server's bin; nats-server when undefined. */
  readonly bin?: string;
  /** Where the stream's files are, under the server's temp directory. */
  streamDir(serverDir: string, stream: string): string;
}

export const STREAM = 'DAMAGE';
const CONSUMER = 'READER';
const MESSAGES = 150;
const ACKED = 40;

export interface TrialResult {
  readonly seed: number;
  readonly stop: 'clean' | 'killed';
  /** The damaged file, relative to the stream's directory, and what was done to it. */
  readonly file: string;
  readonly damage: string;
  /** How the stream came back: served, offline (10118), missing (10059), or the server did not start. */
  readonly outcome: 'served' | 'offline' | 'missing' | 'error' | 'no start';
  /** Acknowledged messages served exactly as stored. */
  readonly intact: number;
  /** Acknowledged messages served with other contents than stored: must be 0. */
  readonly corrupt: number;
  /** Acknowledged messages not served and named in the stream's `lost` (or the stream offline). */
  readonly reported: number;
  /** Acknowledged messages neither served nor reported: must be 0. */
  readonly unaccounted: number;
  /** A publish after the restart got a sequence at or below an acknowledged one: must not. */
  readonly reused: boolean;
  /** The stream was served but refused a publish. */
  readonly unwritable: boolean;
  /** Something was lost or offline and /healthz still said ok. */
  readonly unhealthyHidden: boolean;
  /** The durable consumer came back. */
  readonly consumerBack: boolean;
  /** A damaged-<time>/ directory holds the damaged files (our recovery). */
  readonly movedAside: boolean;
}

interface Stored {
  subject: string;
  data: string;
}

// biome-ignore lint/suspicious/noExplicitAny: API answers are read field by field
type Answer = Record<string, any>;

async function api(nc: NatsConnection, subject: string, body: unknown = ''): Promise<Answer> {
  const payload = typeof body === 'string' ? body : JSON.stringify(body);
  return (await nc.request(subject, payload, { timeout: 10_000 })).json<Answer>();
}

export async function runTrial(target: DamageTarget, seed: number): Promise<TrialResult> {
  const random = seeded(seed);
  const stop = random(2) === 0 ? 'clean' : 'killed';
  const kind: DamageKind = random(2) === 0 ? 'bit flip' : 'truncation';
  let server: RunningNatsServer = await startNatsServer({
    bin: target.bin,
    jetstream: true,
    monitoring: true,
  });
  const dir = server.dir;
  try {
    const stored = await fill(server.url, random);
    await server.kill(stop === 'clean' ? 'SIGTERM' : 'SIGKILL');
    const streamDir = target.streamDir(dir, STREAM);
    const files = storeFiles(streamDir);
    const file = files[random(files.length)]!;
    const damage = damageFile(join(streamDir, file), kind, random);
    const base = { seed, stop, file, damage } as const;
    try {
      server = await server.restart();
    } catch {
      return judged(base, 'no start', stored.size);
    }
    return { ...base, ...(await check(server, stored, streamDir)) };
  } finally {
    await server.stop().catch(() => {});
  }
}

/** A result for a server that could not be asked anything. */
function judged(
  base: Pick<TrialResult, 'seed' | 'stop' | 'file' | 'damage'>,
  outcome: TrialResult['outcome'],
  unaccounted: number,
): TrialResult {
  return {
    ...base,
    outcome,
    intact: 0,
    corrupt: 0,
    reported: 0,
    unaccounted,
    reused: false,
    unwritable: false,
    unhealthyHidden: false,
    consumerBack: false,
    movedAside: false,
  };
}

/** The stream, MESSAGES acknowledged messages of random sizes, a consumer that acked ACKED. */
async function fill(url: string, random: (n: number) => number): Promise<Map<number, Stored>> {
  const nc = await connect({ servers: url });
  try {
    const created = await api(nc, `$JS.API.STREAM.CREATE.${STREAM}`, {
      name: STREAM,
      subjects: ['damage.>'],
      storage: 'file',
    });
    if (created.error) throw new Error(`stream create: ${JSON.stringify(created.error)}`);
    const stored = new Map<number, Stored>();
    for (let i = 1; i <= MESSAGES; i++) {
      const subject = `damage.${i % 7}`;
      const data = `message ${i} ${'x'.repeat(20 + random(600))}`;
      const ack = await (await nc.request(subject, data, { timeout: 10_000 })).json<Answer>();
      if (ack.error || typeof ack.seq !== 'number')
        throw new Error(`publish: ${JSON.stringify(ack)}`);
      stored.set(ack.seq, { subject, data });
    }
    const consumer = await api(nc, `$JS.API.CONSUMER.CREATE.${STREAM}.${CONSUMER}`, {
      stream_name: STREAM,
      config: { durable_name: CONSUMER, ack_policy: 'explicit' },
    });
    if (consumer.error) throw new Error(`consumer create: ${JSON.stringify(consumer.error)}`);
    const inbox = nc.subscribe(`_INBOX.damage.${Date.now()}`, { max: ACKED });
    nc.publish(
      `$JS.API.CONSUMER.MSG.NEXT.${STREAM}.${CONSUMER}`,
      JSON.stringify({ batch: ACKED, expires: 5_000_000_000 }),
      { reply: inbox.getSubject() },
    );
    for await (const message of inbox) {
      if (!message.reply) break;
      // A confirmed ack: the server answers once the ack is stored.
      await nc.request(message.reply, '+ACK', { timeout: 10_000 });
    }
    return stored;
  } finally {
    await nc.close();
  }
}

async function check(
  server: RunningNatsServer,
  stored: Map<number, Stored>,
  streamDir: string,
): Promise<Omit<TrialResult, 'seed' | 'stop' | 'file' | 'damage'>> {
  const nc = await connect({ servers: server.url });
  try {
    const info = await api(nc, `$JS.API.STREAM.INFO.${STREAM}`);
    const code = info.error?.err_code as number | undefined;
    const outcome =
      code === undefined
        ? 'served'
        : code === 10118
          ? 'offline'
          : code === 10059
            ? 'missing'
            : 'error';
    const lost = new Set<number>(info.state?.lost?.msgs ?? []);
    let intact = 0;
    let corrupt = 0;
    let reported = 0;
    let unaccounted = 0;
    for (const [seq, expected] of stored) {
      const got = await api(nc, `$JS.API.STREAM.MSG.GET.${STREAM}`, { seq });
      if (!got.error) {
        const data = Buffer.from(got.message.data ?? '', 'base64').toString();
        if (got.message.subject === expected.subject && data === expected.data) intact++;
        else corrupt++;
      } else if (outcome === 'offline' || lost.has(seq)) reported++;
      else unaccounted++;
    }
    let reused = false;
    let unwritable = false;
    if (outcome === 'served') {
      const ack = await (
        await nc.request('damage.after', 'after', { timeout: 10_000 })
      ).json<Answer>();
      if (ack.error || typeof ack.seq !== 'number') unwritable = true;
      else reused = ack.seq <= Math.max(...stored.keys());
    }
    const damaged = outcome !== 'served' || lost.size > 0 || unaccounted > 0;
    const health = await fetch(`http://127.0.0.1:${server.httpPort}/healthz`);
    const consumer = await api(nc, `$JS.API.CONSUMER.INFO.${STREAM}.${CONSUMER}`);
    return {
      outcome,
      intact,
      corrupt,
      reported,
      unaccounted,
      reused,
      unwritable,
      unhealthyHidden: damaged && health.status === 200,
      consumerBack: !consumer.error,
      movedAside:
        existsSync(streamDir) && readdirSync(streamDir).some((name) => name.startsWith('damaged-')),
    };
  } finally {
    await nc.close();
  }
}
