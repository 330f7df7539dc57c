/** The longest delay Node's setTimeout honours (about 24.8 days); it runs anything longer after 1 ms. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * A setTimeout delay for a wait of `ms`: never negative, and capped at what Node honours, so a
 * far deadline fires early and the caller, finding the deadline not reached, arms again.
 */
export function timerDelay(ms: number): number {
  return Math.min(Math.max(ms, 0), MAX_TIMER_MS);
}

/**
 * setTimeout for a wait of any length: `then` runs once `ms` have passed, never synchronously,
 * a wait beyond Node's limit being reached in steps. `armed` is given each step's timer, so the
 * caller can clear the one pending. Measured on the monotonic clock, as setTimeout and Go's
 * timers are: a wall clock set back does not stretch a deadline.
 */
export function afterWait(
  ms: number,
  then: () => void,
  armed: (timer: NodeJS.Timeout) => void,
): void {
  const due = performance.now() + ms;
  const arm = (wait: number) => {
    const timer = setTimeout(step, timerDelay(wait));
    timer.unref();
    armed(timer);
  };
  const step = () => {
    const left = due - performance.now();
    if (left <= 0) then();
    else arm(left);
  };
  arm(ms);
}

/**
 * afterWait for a caller that only ever cancels: runs `then` after `ms` and returns the function
 * that cancels the wait, whichever step's timer is pending.
 */
export function deadline(ms: number, then: () => void): () => void {
  let timer: NodeJS.Timeout | undefined;
  afterWait(ms, then, (armed) => {
    timer = armed;
  });
  return () => clearTimeout(timer);
}
