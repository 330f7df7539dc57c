/**
 * What repeatFor times: time passed, or the CPU time this process used (all of its threads, so a
 * garbage collector's helpers count). CPU time suits work that never waits, timed on a shared
 * machine: other processes taking the cores away do not count against it.
 */
export type Clock = 'wall' | 'cpu';

function nowNanos(clock: Clock): bigint {
  if (clock === 'wall') return process.hrtime.bigint();
  const { user, system } = process.cpuUsage();
  return BigInt(user + system) * 1000n;
}

/**
 * Runs `step` again and again until at least `minSeconds` have passed on `clock`, so that a fast
 * operation is timed over long enough to rise above timer resolution and scheduler noise.
 */
export function repeatFor(
  minSeconds: number,
  step: () => void,
  clock: Clock = 'wall',
): { steps: number; seconds: number } {
  const start = nowNanos(clock);
  const minNanos = BigInt(Math.round(minSeconds * 1e9));
  let steps = 0;
  let elapsed = 0n;
  do {
    step();
    steps++;
    elapsed = nowNanos(clock) - start;
  } while (elapsed < minNanos);
  return { steps, seconds: Number(elapsed) / 1e9 };
}
