// A slipstream-server whose store is a lazyfs mount, and the power loss the tests inflict on it.
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import {
  type RunningNatsServer,
  slipstreamServerBin,
  startNatsServer,
} from '@slipstream/test-servers';
import { buildLazyfs, LazyFs } from '../src/power-loss/lazyfs.js';

export interface ServerOnLazyfs {
  readonly server: RunningNatsServer;
  /** Kills the server and drops every unsynced write, then starts it again on what survived. */
  powerLoss(): Promise<void>;
  /** Stops the server and unmounts. */
  stop(): Promise<void>;
}

/** Starts the server in a fresh run directory under `dir`; `jetstream` is more of its jetstream block. */
export async function serverOnLazyfs(dir: string, jetstream: string): Promise<ServerOnLazyfs> {
  const here = mkdtempSync(join(dir, 'run-'));
  const fs = new LazyFs(
    buildLazyfs(here),
    join(here, 'backing'),
    join(here, 'mount'),
    join(here, 'eio'),
  );
  await fs.mount();
  let server = await startNatsServer({
    bin: slipstreamServerBin,
    config: `jetstream { store_dir: "${fs.mountPoint}", ${jetstream} }`,
  });
  return {
    get server() {
      return server;
    },
    async powerLoss() {
      await server.kill('SIGKILL');
      await fs.crash();
      await fs.mount();
      server = await server.restart();
    },
    async stop() {
      await server.stop();
      await fs.crash();
    },
  };
}
