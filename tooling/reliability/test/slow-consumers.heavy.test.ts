// The CI subset of the campaign's slow-consumers section: one stalled subscriber among 20 fast
// ones (100 in the campaign) on slipstream-server; the fast ones keep their rate and the stalled
// one is cut off as a slow consumer.
import { slipstreamServerBin } from '@slipstream/test-servers';
import { describe, expect, it } from 'vitest';
import { compareStall, stallFigures } from '../src/sections/slow-consumers.js';

describe('slipstream-server with one stalled subscriber among fast ones', () => {
  it('keeps the fast ones within 10% of their rate and cuts the stalled one off', async () => {
    const comparison = await compareStall(slipstreamServerBin, 20, 8_000);
    console.log(JSON.stringify(comparison));
    expect(comparison.with.fastRate).toBeGreaterThan(0);
    expect(stallFigures(comparison).filter((figure) => figure.holds === false)).toEqual([]);
  }, 90_000);
});
