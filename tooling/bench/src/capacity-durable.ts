/**
 * The capacity table's durability and restart rows: a KV put awaited one at a time (ours on disk
 * before its ack, nats-server not), and the start of a server whose store already holds streams.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cpuMeter, firstInfoCost, startServerProcess } from '@slipstream/test-servers';
import { importIfBuilt } from './harness/optional.js';
import { SERVER_CORE } from './harness/pinning.js';
import type { Sample } from './harness/rounds.js';
import type { Client, Connection, Prepared } from './jetstream-consume.js';
import { type JetStreamServerKind, jetStreamCommand } from './jetstream-servers.js';

interface Kv {
  put(key: string, value: Uint8Array): Promise<number>;
}
interface KvModule {
  Kvm: new (nc: Connection) => { create(bucket: string): Promise<Kv> };
}
interface ManagerModule {
  jetstreamManager(nc: Connection): Promise<{
    streams: { add(config: { name: string; subjects: string[] }): Promise<unknown> };
    jetstream(): { publish(subject: string, payload: Uint8Array): Promise<unknown> };
  }>;
}

const KV_VALUE = new Uint8Array(128).fill(7);
/** Puts before the timed ones: the bucket's first writes also create its files. */
const KV_WARMUP = 20;
let buckets = 0;

/** `puts` KV puts, each awaited before the next, into a fresh file bucket: puts/s and CPU µs/put. */
export async function kvPutWorkload(
  client: Client,
  puts: number,
): Promise<(server: Prepared) => Promise<Sample>> {
  const kv = await importIfBuilt<KvModule>('@slipstream/jetstream/kv', ['Kvm']);
  if ('skipped' in kv) throw new Error(kv.skipped);
  return async (server) => {
    const nc = await client.connect(server.url);
    try {
      const bucket = await new kv.module.Kvm(nc).create(`capacity_${++buckets}`);
      for (let i = 0; i < KV_WARMUP; i++) await bucket.put(`warm${i}`, KV_VALUE);
      const cpu = cpuMeter(server.pid);
      const started = performance.now();
      for (let i = 0; i < puts; i++) await bucket.put(`key${i % 100}`, KV_VALUE);
      const seconds = (performance.now() - started) / 1000;
      return { rate: puts / seconds, cpu: (cpu.seconds() * 1e6) / puts };
    } finally {
      await nc.close();
    }
  };
}

/**
 * A store holding `streams` file streams (each with one message), made once per server kind by
 * a server that is then stopped; `firstInfoMs(kind)` starts a pinned server on it.
 */
export async function storesWithStreams(
  client: Client,
  streams: number,
): Promise<{
  firstInfoMs(kind: JetStreamServerKind): Promise<Sample>;
  remove(): Promise<void>;
}> {
  const root = await mkdtemp(join(tmpdir(), 'bench-streams-'));
  const manager = await importIfBuilt<ManagerModule>('@slipstream/jetstream', ['jetstreamManager']);
  if ('skipped' in manager) throw new Error(manager.skipped);
  const commands = new Map<JetStreamServerKind, string[]>();
  const filled = async (kind: JetStreamServerKind) => {
    const known = commands.get(kind);
    if (known) return known;
    await mkdir(join(root, kind), { recursive: true });
    const command = await jetStreamCommand(kind, join(root, kind), join(root, kind, 'store'));
    const server = await startServerProcess(command[0]!, (port) => [
      ...command.slice(1),
      '-p',
      String(port),
      '-a',
      '127.0.0.1',
    ]);
    try {
      const nc = await client.connect(server.url);
      try {
        const jsm = await manager.module.jetstreamManager(nc);
        const js = jsm.jetstream();
        for (let i = 0; i < streams; i++) {
          await jsm.streams.add({ name: `START_${i}`, subjects: [`start.${i}`] });
          await js.publish(`start.${i}`, KV_VALUE);
        }
      } finally {
        await nc.close();
      }
    } finally {
      await server.stop();
    }
    commands.set(kind, command);
    return command;
  };
  return {
    async firstInfoMs(kind) {
      return { firstInfoMs: await pinnedFirstInfoMs(await filled(kind)) };
    },
    remove: () => rm(root, { recursive: true, force: true }),
  };
}

/** ms from the spawn of `command` on the server core to its first INFO. */
export async function pinnedFirstInfoMs(command: readonly string[]): Promise<number> {
  const cost = await firstInfoCost('taskset', (port) => [
    '-c',
    String(SERVER_CORE),
    ...command,
    '-p',
    String(port),
    '-a',
    '127.0.0.1',
  ]);
  return cost.ms;
}
