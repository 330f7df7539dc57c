/**
 * Runs `step` again and again until at least `minSeconds` have passed, so that a fast operation is
 * timed over long enough to rise above timer resolution and scheduler noise.
 */
export function repeatFor(
  minSeconds: number,
  step: () => void,
): { steps: number; seconds: number } {
  const start = process.hrtime.bigint();
  const minNanos = BigInt(Math.round(minSeconds * 1e9));
  let steps = 0;
  let elapsed = 0n;
  do {
    step();
    steps++;
    elapsed = process.hrtime.bigint() - start;
  } while (elapsed < minNanos);
  return { steps, seconds: Number(elapsed) / 1e9 };
}
