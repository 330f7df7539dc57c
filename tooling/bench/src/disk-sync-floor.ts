/**
 * The floor under a synced publish: how long one small write plus fdatasync takes on the disk
 * the stores live on (os.tmpdir()). A PubAck sent only after the WAL is on disk cannot come
 * back faster than this, whatever the server does.
 */
import { closeSync, fdatasyncSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { percentile } from './harness/stats.js';

/** A SQLite page with its WAL frame header: what a one-message commit appends. */
const WRITE_BYTES = 4096 + 24;
/** Writes go round these slots, as a WAL restarts at its beginning after a checkpoint. */
const SLOTS = 16;

/** p50 and p99 in µs of `count` write + fdatasync pairs on a fresh temp file. */
export function fdatasyncLatency(count: number): { p50Micros: number; p99Micros: number } {
  const dir = mkdtempSync(join(tmpdir(), 'bench-fdatasync-'));
  const fd = openSync(join(dir, 'probe'), 'w');
  try {
    const block = new Uint8Array(WRITE_BYTES).fill(7);
    // Allocate the slots first: the timed writes overwrite, they do not grow the file.
    for (let slot = 0; slot < SLOTS; slot++)
      writeSync(fd, block, 0, block.length, slot * block.length);
    fdatasyncSync(fd);
    const micros: number[] = [];
    for (let i = 0; i < count; i++) {
      const start = process.hrtime.bigint();
      writeSync(fd, block, 0, block.length, (i % SLOTS) * block.length);
      fdatasyncSync(fd);
      micros.push(Number(process.hrtime.bigint() - start) / 1000);
    }
    return { p50Micros: percentile(micros, 0.5), p99Micros: percentile(micros, 0.99) };
  } finally {
    closeSync(fd);
    rmSync(dir, { recursive: true, force: true });
  }
}
