/** Resolves once `check()` is true; fails with `what` after `timeoutMs` (a safety net, not a speed test). */
export async function eventually(
  what: string,
  check: () => boolean,
  timeoutMs = 20_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Collects every message a subscription delivers, in order, until it ends. */
export function collect<T>(iterable: AsyncIterable<T>): { items: T[]; done: Promise<void> } {
  const items: T[] = [];
  const done = (async () => {
    for await (const item of iterable) items.push(item);
  })();
  return { items, done };
}
