/**
 * CPU affinity of the benchmark process, through `taskset`: a pinned phase keeps the client on its
 * own core, so a server pinned to the other one cannot borrow the client's core and its capacity shows.
 */
import { execFileSync } from 'node:child_process';

/** Where pinned benchmarks put each server (`taskset -c`) and this process, on a machine of 2 cores or more. */
export const SERVER_CORE = 1;
export const CLIENT_CORE = 0;

/** Runs `phase` with every thread of this process (libuv's pool too) on `core`, then restores its affinity. */
export async function whilePinned<T>(core: number, phase: () => Promise<T>): Promise<T> {
  const unpinned = affinity();
  pin(String(core));
  try {
    return await phase();
  } finally {
    pin(unpinned);
  }
}

/** This process's CPU affinity list (`0-1`). */
function affinity(): string {
  const out = execFileSync('taskset', ['-cp', String(process.pid)], { encoding: 'utf8' });
  return out.trim().split(' ').at(-1)!;
}

function pin(cores: string): void {
  // -a: every thread, libuv's pool too.
  execFileSync('taskset', ['-a', '-cp', cores, String(process.pid)], { stdio: 'ignore' });
}
