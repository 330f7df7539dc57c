// A durable consumer whose creation was answered must be there after a power loss, also in
// lazy mode (sync_interval), which syncs the WAL only every interval: the campaign's power-loss
// cycles lost one created just before a crash ("consumer not found" after the restart).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from '@slipstream/client';
import { AckPolicy, jetstreamManager } from '@slipstream/jetstream';
import { afterAll, describe, expect, it } from 'vitest';
import { serverOnLazyfs } from './lazyfs-server.js';

describe('a durable consumer created just before a power loss', () => {
  const dir = mkdtempSync(join(tmpdir(), 'power-loss-new-consumer-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it.each([
    ['sync always', ''],
    ['sync_interval 1m', 'sync_interval: "1m"'],
  ])(
    'is there after the restart (%s)',
    async (_, syncSetting) => {
      const run = await serverOnLazyfs(dir, syncSetting);
      try {
        let nc = await connect({ servers: run.server.url });
        const jsm = await jetstreamManager(nc);
        await jsm.streams.add({ name: 'ORDERS', subjects: ['orders.>'], storage: 'file' });
        await jsm.consumers.add('ORDERS', {
          durable_name: 'audit',
          ack_policy: AckPolicy.Explicit,
        });
        await nc.close();

        await run.powerLoss();

        nc = await connect({ servers: run.server.url });
        const info = await (await jetstreamManager(nc)).consumers.info('ORDERS', 'audit');
        await nc.close();
        expect(info.config.durable_name).toBe('audit');
      } finally {
        await run.stop();
      }
    },
    30_000,
  );
});
