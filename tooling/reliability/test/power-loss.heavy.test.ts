// The CI subset of the campaign's power-loss section: a few cycles of a publish storm on a
// lazyfs store, the server and the filesystem crashed together (unsynced data dropped), the
// server restarted on what survived. In the default sync mode nothing confirmed may be lost.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { slipstreamServerBin } from '@slipstream/test-servers';
import { afterAll, describe, expect, it } from 'vitest';
import { runCycles } from '../src/power-loss/cycles.js';
import { buildLazyfs } from '../src/power-loss/lazyfs.js';

const cycles = Number(process.env.POWER_LOSS_CYCLES ?? 4);

describe('slipstream-server through power losses (sync always)', () => {
  const workDir = mkdtempSync(join(tmpdir(), 'power-loss-test-'));
  afterAll(() => rmSync(workDir, { recursive: true, force: true }));

  it(`loses no acknowledged message, KV put or confirmed ack over ${cycles} cycles`, async () => {
    const outcome = await runCycles(
      { name: 'slipstream', bin: slipstreamServerBin },
      {
        lazyfsBinary: buildLazyfs(workDir),
        workDir,
        maxCycles: cycles,
        deadline: Number.POSITIVE_INFINITY,
        stormMs: [300, 1_200],
        log: (line) => console.log(line),
      },
    );
    expect(outcome.cycles).toBe(cycles);
    expect(outcome.ledger.messageCount).toBeGreaterThan(0);
    expect(outcome.ledger.ackCount).toBeGreaterThan(0);
    expect(outcome.problems).toEqual([]);
    expect([...outcome.lostMessages.keys()]).toEqual([]);
    expect([...outcome.lostKvPuts.keys()]).toEqual([]);
    expect([...outcome.lostAcks.keys()]).toEqual([]);
    expect(outcome.streamsNotOpening).toBe(0);
  }, 120_000);
});
