import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { connect } from '@slipstream/client';
import { jetstream, jetstreamManager } from '@slipstream/jetstream';
import {
  type RunningNatsServer,
  slipstreamServerBin,
  startNatsServer,
} from '@slipstream/test-servers';
import { LazyFs } from './lazyfs.js';
import { startRetryingRebuilds } from './start-retry.js';

/** What the server showed when its disk answered fsync with EIO in lazy mode. */
export interface SyncFailureReport {
  /** The error-level lines it logged. */
  readonly errorLines: string[];
  /** /healthz's status and error while the syncs failed... */
  readonly whileFailing: { status: number; error?: string };
  /** ...and once they succeeded again (a later success proves nothing of the failed sync). */
  readonly afterwards: { status: number; error?: string };
}

/**
 * Our server in lazy mode (`sync_interval: "200ms"`) on lazyfs, a stream written to, then every
 * fsync failing with EIO while more is published: nobody waits for those syncs, so only the log
 * and /healthz can tell. Then the syncs succeed again.
 */
export async function injectSyncFailure(
  lazyfsBinary: string,
  dir: string,
  log: (line: string) => void,
): Promise<SyncFailureReport> {
  const fs = new LazyFs(lazyfsBinary, join(dir, 'backing'), join(dir, 'mount'), join(dir, 'eio'));
  await fs.mount();
  let server: RunningNatsServer | undefined;
  try {
    server = await startRetryingRebuilds(
      () =>
        startNatsServer({
          bin: slipstreamServerBin,
          monitoring: true,
          config: `jetstream { store_dir: "${fs.mountPoint}", sync_interval: "200ms" }`,
        }),
      log,
    );
    return await failSyncs(server, fs);
  } finally {
    await server?.stop();
    await fs.crash();
  }
}

async function failSyncs(server: RunningNatsServer, fs: LazyFs): Promise<SyncFailureReport> {
  const healthz = async () => {
    const response = await fetch(`http://127.0.0.1:${server.httpPort}/healthz`);
    const body = (await response.json()) as { error?: string };
    return { status: response.status, error: body.error };
  };
  const publish = async (count: number) => {
    const nc = await connect({ servers: server.url });
    const js = jetstream(nc);
    for (let i = 0; i < count; i++) await js.publish('lazy.x', `m${i}`);
    await nc.close();
  };
  const nc = await connect({ servers: server.url });
  const jsm = await jetstreamManager(nc);
  await jsm.streams.add({ name: 'LAZY', subjects: ['lazy.>'], storage: 'file' });
  await nc.close();
  await publish(10);

  writeFileSync(fs.failFsyncFlag, '');
  await publish(10);
  // a few sync intervals: the background sync and the interval's checkpoint both fail
  await new Promise((r) => setTimeout(r, 1_000));
  const whileFailing = await healthz();

  rmSync(fs.failFsyncFlag);
  await publish(10);
  await new Promise((r) => setTimeout(r, 1_000));
  const errorLines = server
    .output()
    .split('\n')
    .filter((line) => line.includes('[ERR]'));
  return { errorLines, whileFailing, afterwards: await healthz() };
}
