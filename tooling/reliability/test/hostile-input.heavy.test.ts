// The CI subset of the campaign's hostile-input section: 20 seconds of seeded protocol fuzzing
// over TCP, TLS and WebSocket and JSON fuzzing of $JS.API, KV and object store subjects against
// slipstream-server. HOSTILE_SEED replays a run (its seed is in the test's name and output).
import { describe, expect, it } from 'vitest';
import { runFuzz } from '../src/hostile/fuzz-run.js';
import { describeFuzzRun, fuzzFigures } from '../src/sections/hostile-input.js';

const firstSeed = Number(process.env.HOSTILE_SEED ?? Date.now() % 1_000_000_000);

describe(`slipstream-server under hostile input (seeds from ${firstSeed})`, () => {
  it('answers every request, never exits, keeps serving a good client, writes only in its store', async () => {
    const run = await runFuzz({ durationMs: 20_000, firstSeed, log: console.log });
    console.log(describeFuzzRun(run));
    if (run.exitOutput) console.log(run.exitOutput);
    expect(Object.values(run.protocolCases).every((cases) => cases > 0)).toBe(true);
    expect(run.apiCases).toBeGreaterThan(0);
    expect(fuzzFigures(run).filter((figure) => figure.holds === false)).toEqual([]);
  }, 120_000);
});
