import { vi } from 'vitest';

/** Resolves once `check()` is true; fails with `what` after `timeoutMs` (a safety net, not a speed test). */
export async function eventually(
  what: string,
  check: () => boolean,
  timeoutMs = 20_000,
): Promise<void> {
  await vi.waitFor(
    () => {
      if (!check()) throw new Error(`timed out waiting for ${what}`);
    },
    { timeout: timeoutMs, interval: 10 },
  );
}

/** Collects every message a subscription delivers, in order, until it ends. */
export function collect<T>(iterable: AsyncIterable<T>): { items: T[]; done: Promise<void> } {
  const items: T[] = [];
  const done = (async () => {
    for await (const item of iterable) items.push(item);
  })();
  return { items, done };
}
