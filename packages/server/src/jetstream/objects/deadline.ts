import { afterWait } from '../../timer-delay.js';

/**
 * Runs `then` after `ms` (through afterWait, so any configured length works); returns the
 * function that cancels it.
 */
export function deadline(ms: number, then: () => void): () => void {
  let timer: NodeJS.Timeout | undefined;
  afterWait(ms, then, (armed) => {
    timer = armed;
  });
  return () => clearTimeout(timer);
}
