/**
 * The JetStream servers the JetStream benchmark compares, each a child process on a free port
 * with its own store directory: nats-server 2.9.10 (`-js -sd`, which syncs lazily, every 2 min)
 * and ours in its two sync modes (`always`, the default, and nats-server's lazy trade-off set
 * with `sync_interval: "2m"`). Optionally pinned to one core with `taskset`, so that a server
 * cannot borrow the client's core and its own capacity shows.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  requireSystemComponent,
  type ServerProcess,
  slipstreamServerBin,
  startServerProcess,
} from '@slipstream/test-servers';

export type JetStreamServerKind = 'nats-server' | 'slipstream always' | 'slipstream lazy';

export interface JetStreamServer {
  readonly kind: JetStreamServerKind;
  readonly process: ServerProcess;
  /** The store directory (on the disk of os.tmpdir()), holding nothing but the store. */
  readonly storeDir: string;
  stop(): Promise<void>;
}

/** Starts one server with JetStream on, or says why ours cannot run (not built, failed to start). */
export async function startJetStreamServer(
  kind: JetStreamServerKind,
  options: { core?: number } = {},
): Promise<JetStreamServer | { skipped: string }> {
  if (kind !== 'nats-server' && !existsSync(slipstreamServerBin)) {
    return { skipped: `slipstream-server not built yet (${slipstreamServerBin} missing)` };
  }
  const root = await mkdtemp(join(tmpdir(), 'bench-js-'));
  const storeDir = join(root, 'store');
  try {
    const command = await jetStreamCommand(kind, root, storeDir);
    const pinned =
      options.core === undefined ? command : ['taskset', '-c', String(options.core), ...command];
    const server = await startServerProcess(pinned[0], (port) => [
      ...pinned.slice(1),
      '-p',
      String(port),
      '-a',
      '127.0.0.1',
    ]);
    return {
      kind,
      process: server,
      storeDir,
      stop: async () => {
        await server.stop();
        await rm(root, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await rm(root, { recursive: true, force: true });
    if (kind === 'nats-server') throw error;
    return { skipped: `slipstream-server did not start: ${String(error).slice(0, 300)}` };
  }
}

/** Command and arguments of a server kind, before the port and address; `root` may hold its config file. */
export async function jetStreamCommand(
  kind: JetStreamServerKind,
  root: string,
  storeDir: string,
): Promise<string[]> {
  switch (kind) {
    case 'nats-server':
      return [requireSystemComponent('nats-server'), '-js', '-sd', storeDir];
    case 'slipstream always':
      return [process.execPath, slipstreamServerBin, '-js', '-sd', storeDir];
    case 'slipstream lazy': {
      // The sync interval has no flag: a config file sets it, the command line the port.
      const config = join(root, 'server.conf');
      await writeFile(config, `jetstream { store_dir: "${storeDir}", sync_interval: "2m" }\n`);
      return [process.execPath, slipstreamServerBin, '-c', config];
    }
  }
}

/**
 * What `du -s` says: the bytes of disk blocks allocated to the files under `dir`, in `all`;
 * `wal` is the part in SQLite WAL files, which a checkpoint empties but never shrinks.
 */
export async function diskUsageBytes(dir: string): Promise<{ all: number; wal: number }> {
  const usage = { all: 0, wal: 0 };
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const bytes = (await stat(join(entry.parentPath, entry.name))).blocks * 512;
    usage.all += bytes;
    if (entry.name.endsWith('-wal')) usage.wal += bytes;
  }
  return usage;
}
