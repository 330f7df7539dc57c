// The CI subset of the campaign's soak: one minute of mixed core and JetStream traffic against
// slipstream-server; RSS, open files and request latency show no upward trend.
import { slipstreamServerBin } from '@slipstream/test-servers';
import { describe, expect, it } from 'vitest';
import { runSoak } from '../src/load/soak.js';
import { describeSoak, soakFigures } from '../src/sections/soak.js';

describe('slipstream-server over a one-minute soak', () => {
  it('shows no upward trend in RSS, open files or latency, and fails no operation', async () => {
    const run = await runSoak({ bin: slipstreamServerBin, durationMs: 60_000 });
    console.log(describeSoak(run));
    expect(run.samples.length).toBeGreaterThan(30);
    expect(soakFigures(run).filter((figure) => figure.holds === false)).toEqual([]);
  }, 120_000);
});
