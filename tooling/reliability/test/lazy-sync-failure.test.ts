// Lazy sync (sync_interval set) syncs the WAL in the background, where nobody waits for the
// result: when that sync fails (the disk answers fsync with EIO, injected by lazyfs), the failure
// must be logged at error level and reported by /healthz, never swallowed; and it stays
// reported, since Linux may drop the pages of a failed fsync and report the next one clean.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildLazyfs } from '../src/power-loss/lazyfs.js';
import { injectSyncFailure } from '../src/power-loss/sync-failure.js';

describe('a failing background sync in lazy mode', () => {
  const dir = mkdtempSync(join(tmpdir(), 'lazy-sync-failure-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('is logged once at error level and keeps /healthz unhealthy', async () => {
    const report = await injectSyncFailure(buildLazyfs(dir), dir, console.log);
    expect(report.errorLines).toHaveLength(1);
    expect(report.errorLines[0]).toMatch(
      /JetStream stream '\$G > LAZY': its store failed to sync to disk \(.*I\/O error.*\)/i,
    );
    expect(report.whileFailing.status).toBe(503);
    expect(report.whileFailing.error).toMatch(/'\$G > LAZY'.*failed to sync/);
    expect(report.afterwards.status).toBe(503);
  }, 30_000);
});
