// A durable consumer whose creation was answered must be there after a power loss, also in
// lazy mode (sync_interval), which syncs the WAL only every interval: the campaign's power-loss
// cycles lost one created just before a crash ("consumer not found" after the restart).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from '@slipstream/client';
import { AckPolicy, jetstreamManager } from '@slipstream/jetstream';
import { slipstreamServerBin, startNatsServer } from '@slipstream/test-servers';
import { afterAll, describe, expect, it } from 'vitest';
import { buildLazyfs, LazyFs } from '../src/power-loss/lazyfs.js';

describe('a durable consumer created just before a power loss', () => {
  const dir = mkdtempSync(join(tmpdir(), 'power-loss-new-consumer-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it.each([
    ['sync always', ''],
    ['sync_interval 1m', 'sync_interval: "1m"'],
  ])(
    'is there after the restart (%s)',
    async (_, syncSetting) => {
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
        config: `jetstream { store_dir: "${fs.mountPoint}", ${syncSetting} }`,
      });
      try {
        let nc = await connect({ servers: server.url });
        const jsm = await jetstreamManager(nc);
        await jsm.streams.add({ name: 'ORDERS', subjects: ['orders.>'], storage: 'file' });
        await jsm.consumers.add('ORDERS', {
          durable_name: 'audit',
          ack_policy: AckPolicy.Explicit,
        });
        await nc.close();

        await server.kill('SIGKILL');
        await fs.crash();
        await fs.mount();
        server = await server.restart();

        nc = await connect({ servers: server.url });
        const info = await (await jetstreamManager(nc)).consumers.info('ORDERS', 'audit');
        await nc.close();
        expect(info.config.durable_name).toBe('audit');
      } finally {
        await server.stop();
        await fs.crash();
      }
    },
    30_000,
  );
});
