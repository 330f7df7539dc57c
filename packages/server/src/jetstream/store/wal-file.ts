import {
  closeSync,
  fdatasync,
  fdatasyncSync,
  fstatSync,
  fsyncSync,
  openSync,
  writeSync,
} from 'node:fs';
import { dirname } from 'node:path';

/**
 * How far past SQLite's last write the WAL file is filled with zeros at a time: as far as the
 * file is long, within these bounds. A commit's fdatasync of a file that grew also writes out
 * the blocks just allocated and the new size (ext4 without a journal: about twice an
 * overwrite's sync; with one, a journal commit); on written zeros it is a plain overwrite. Each
 * fill is flushed by the sync of the commit that made it, so the first fills of a WAL that
 * starts over after an idle truncation are small: a stream written once in a while does not
 * write a large stretch of zeros with each message.
 */
const MIN_FILL_BYTES = 32 * 1024;
const MAX_FILL_BYTES = 256 * 1024;

const zeros = new Uint8Array(MAX_FILL_BYTES);

/**
 * The WAL of a store as its syncs see it (after each commit in `sync: 'always'` mode, in the
 * background every few commits in lazy mode): an
 * fdatasync on libuv's thread pool (as SQLite's own FULL sync: the data and the size that finds
 * it, without the other metadata; its own descriptor will do, as the kernel writes out the file's
 * pages whoever wrote them), after filling the file with zeros ahead of SQLite's writes
 * up to `limit` (the store's journal_size_limit, the size SQLite cuts the WAL back to when it
 * starts over). SQLite reads frames only up to the first one whose header does not check out,
 * so zeros past the last frame are an empty tail to it, after a crash too.
 *
 * SQLite appends to the WAL only during a write on this (the event loop's) thread, and the fill
 * happens between writes, synchronously, past the file's current end: it never meets a frame.
 * The idle checkpoint's truncation on the worker thread may cut the file meanwhile; zeros
 * written behind a cut only leave a WAL SQLite sees as empty.
 */
export class WalFile {
  private fd: number | undefined;
  /** The size this object last left the file at: any other size means SQLite grew it (or a checkpoint cut it). */
  private filledTo = -1;

  constructor(
    private readonly path: string,
    private readonly limit: number,
  ) {}

  /**
   * Makes the WAL's committed frames durable; rejects, never throws, when it cannot. The first
   * call also syncs the directory, for the WAL's own entry.
   */
  sync(): Promise<void> {
    let fd: number;
    try {
      fd = this.open();
    } catch (error) {
      return Promise.reject(error);
    }
    this.fillAhead(fd);
    return new Promise((resolve, reject) =>
      fdatasync(fd, (error) => (error ? reject(error) : resolve())),
    );
  }

  /** As `sync`, on the calling thread (a commit with nothing to overlap its sync); throws. */
  syncNow(): void {
    const fd = this.open();
    this.fillAhead(fd);
    fdatasyncSync(fd);
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }

  private open(): number {
    if (this.fd !== undefined) return this.fd;
    this.fd = openSync(this.path, 'r+');
    const dir = openSync(dirname(this.path), 'r');
    try {
      fsyncSync(dir);
    } finally {
      closeSync(dir);
    }
    return this.fd;
  }

  /**
   * When SQLite wrote past the zeros (or the file was cut), fills the next stretch. A fill that
   * fails (a full disk) only leaves SQLite to grow the file itself, as without it; a partial
   * one leaves the file at a size that has the next commit try again.
   */
  private fillAhead(fd: number): void {
    try {
      const size = fstatSync(fd).size;
      if (size === this.filledTo || size >= this.limit) return;
      const fill = Math.min(Math.max(size, MIN_FILL_BYTES), MAX_FILL_BYTES);
      const end = Math.min(size + fill, this.limit);
      writeSync(fd, zeros, 0, end - size, size);
      this.filledTo = end;
    } catch {
      // Nothing filled: the sync still covers what SQLite wrote.
    }
  }
}
