/**
 * One server's run on a full disk: its store on a small tmpfs with some ballast beside it, a
 * file stream published to (4 KiB messages, each awaiting its PubAck) until the server refuses,
 * then, still full, a core NATS round trip and one more publish; the ballast removed, publishing
 * again; the server restarted, every acknowledged message read back.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { connect, type NatsConnection } from '@slipstream/client';
import { type RunningNatsServer, startNatsServer } from '@slipstream/test-servers';

const STREAM = 'FULL';
const PAYLOAD_BYTES = 4096;
/** The tmpfs; the ballast takes part of it, the server's files and messages the rest. */
const DISK = '8m';
const BALLAST_BYTES = 2 * 1024 * 1024;
const MAX_PUBLISHES = 5_000;

export interface FullDiskRun {
  readonly target: string;
  /** Messages acknowledged before the first refusal. */
  readonly acknowledged: number;
  /** The first refusal's err_code (and its description), or what went wrong instead. */
  readonly refusal: string;
  readonly refusalCode: number | undefined;
  /** A core NATS request answered while the disk was full. */
  readonly coreServed: boolean;
  /** A publish acknowledged once the ballast was gone. */
  readonly resumed: boolean;
  /** Acknowledged messages missing or changed after the restart. */
  readonly lost: number;
}

// biome-ignore lint/suspicious/noExplicitAny: API answers are read field by field
type Answer = Record<string, any>;

async function ask(nc: NatsConnection, subject: string, body: string): Promise<Answer> {
  return (await nc.request(subject, body, { timeout: 10_000 })).json<Answer>();
}

const payloadOf = (i: number) => `${i}:`.padEnd(PAYLOAD_BYTES, 'x');

/** Mounts the tmpfs at `mountPoint`; throws (with why) where that is not allowed. */
export function mountSmallDisk(mountPoint: string): void {
  mkdirSync(mountPoint, { recursive: true });
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${DISK}`, 'tmpfs', mountPoint]);
}

export function unmount(mountPoint: string): void {
  execFileSync('umount', [mountPoint]);
}

export async function runFullDisk(
  target: { name: string; bin?: string },
  mountPoint: string,
): Promise<FullDiskRun> {
  const store = join(mountPoint, target.name.replace(/[^a-z0-9]+/gi, '-'));
  const ballast = join(mountPoint, 'ballast');
  writeFileSync(ballast, new Uint8Array(BALLAST_BYTES));
  let server: RunningNatsServer = await startNatsServer({
    bin: target.bin,
    config: `jetstream { store_dir: "${store}" }`,
  });
  try {
    let nc = await connect({ servers: server.url });
    const created = await ask(
      nc,
      `$JS.API.STREAM.CREATE.${STREAM}`,
      JSON.stringify({ name: STREAM, subjects: ['full.>'], storage: 'file' }),
    );
    if (created.error) throw new Error(`stream create: ${JSON.stringify(created.error)}`);
    const acked: number[] = [];
    let refused: Answer | undefined;
    for (let i = 0; i < MAX_PUBLISHES && !refused; i++) {
      let ack: Answer;
      try {
        ack = await ask(nc, 'full.m', payloadOf(i));
      } catch (error) {
        ack = { error: { err_code: undefined, description: (error as Error).message } };
      }
      if (ack.error) refused = ack;
      else acked.push(ack.seq as number);
    }
    const echo = nc.subscribe('core.echo', {
      callback: (_error, message) => {
        message.respond('pong');
      },
    });
    const coreServed = await nc
      .request('core.echo', 'ping', { timeout: 5_000 })
      .then((reply) => reply.string() === 'pong')
      .catch(() => false);
    echo.unsubscribe();
    rmSync(ballast);
    const resumedAck = await ask(nc, 'full.m', 'after').catch(() => ({ error: true }));
    await nc.close();
    server = await server.restart();
    nc = await connect({ servers: server.url });
    let lost = 0;
    for (const seq of acked) {
      const got = await ask(nc, `$JS.API.STREAM.MSG.GET.${STREAM}`, JSON.stringify({ seq }));
      const data = got.error ? undefined : Buffer.from(got.message.data, 'base64').toString();
      if (data !== payloadOf(seq - 1)) lost++;
    }
    await nc.close();
    const code = refused?.error?.err_code as number | undefined;
    return {
      target: target.name,
      acknowledged: acked.length,
      refusal: refused
        ? `${code ?? 'no code'} ${refused.error.description ?? ''}`.trim()
        : `none in ${MAX_PUBLISHES} publishes`,
      refusalCode: code,
      coreServed,
      resumed: !resumedAck.error,
      lost,
    };
  } finally {
    await server.stop().catch(() => {});
    rmSync(ballast, { force: true });
    rmSync(store, { recursive: true, force: true });
  }
}
