import { createRequire } from 'node:module';

/** What a command needs of a progress bar: one step, the end. */
export interface Progress {
  increment(steps?: number): void;
  /** Ends a bar whose total was an estimate: the total becomes the count reached, all full. */
  complete(): void;
  stop(): void;
}

/** No bar at all: for `--json`, and where nobody is watching. */
export const silentProgress: Progress = { increment() {}, complete() {}, stop() {} };

/**
 * A progress bar on stderr for a person at a terminal; nothing at all when stderr is a pipe or a
 * file, where a bar redrawn in place would only be noise.
 */
export function progressBar(label: string, total: number): Progress {
  if (!process.stderr.isTTY) return silentProgress;
  // Loaded only when a bar is drawn, which a pipe never sees.
  const { Presets, SingleBar } = createRequire(import.meta.url)(
    'cli-progress',
  ) as typeof import('cli-progress');
  const bar = new SingleBar(
    {
      format: `${label} [{bar}] {percentage}% | {value}/{total} | {eta_formatted} left`,
      stream: process.stderr,
      hideCursor: true,
      clearOnComplete: false,
      etaBuffer: 100,
    },
    Presets.shades_classic,
  );
  bar.start(total, 0);
  let counted = 0;
  return {
    increment: (steps = 1) => {
      counted += steps;
      bar.increment(steps);
    },
    complete: () => {
      bar.setTotal(counted);
      bar.update(counted);
    },
    stop: () => bar.stop(),
  };
}
