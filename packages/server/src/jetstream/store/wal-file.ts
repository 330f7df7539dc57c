import {
  closeSync,
  fdatasync,
  fdatasyncSync,
  fstatSync,
  fsyncSync,
  openSync,
  readSync,
  writeSync,
} from 'node:fs';
import { endianness } from 'node:os';
import { dirname } from 'node:path';

/**
 * How far past SQLite's last write the WAL file is filled with zeros at a time: as far as the
 * file is long, within these bounds. A commit's fdatasync of a file that grew also writes out
 * the blocks just allocated and the new size (ext4 without a journal: about twice an
 * overwrite's sync; with one, a journal commit); on written zeros it is a plain overwrite. Each
 * fill is flushed by the sync of the commit that made it, so the first fills of a WAL that
 * starts over after an idle truncation are small: a stream written once in a while does not
 * write a large stretch of zeros with each message. A fill is made once SQLite's frames come
 * within MIN_FILL_BYTES of the zeros' end, so the next commit (a publish writes two or three
 * 4,120-byte frames) still lands on zeros.
 */
const MIN_FILL_BYTES = 32 * 1024;
const MAX_FILL_BYTES = 256 * 1024;

const zeros = new Uint8Array(MAX_FILL_BYTES);

/**
 * The first copy of SQLite's wal-index header, at the start of the `-shm` file (SQLite's file
 * format, "WAL-Index Format"), in the machine's byte order: the page size (1 means 65536), the
 * last valid frame, and the two salts, which change whenever the WAL starts over (a checkpoint
 * that restarts or truncates it).
 */
const INDEX_HEADER_BYTES = 48;
const PAGE_SIZE_AT = 14;
const LAST_FRAME_AT = 16;
const SALT_AT = 32;
const WAL_HEADER_BYTES = 32;
const FRAME_HEADER_BYTES = 24;
const LITTLE_ENDIAN = endianness() === 'LE';

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
 * happens between writes, synchronously, past the file's current end (a stat's, never the
 * wal-index header's word): it never meets a frame.
 * The idle checkpoint's truncation on the worker thread may cut the file meanwhile; zeros
 * written behind a cut only leave a WAL SQLite sees as empty.
 */
export class WalFile {
  private fd: number | undefined;
  /** The `-shm` file, read for where SQLite's frames end; undefined: stat the WAL at every sync. */
  private shm: number | undefined;
  /** The size this object last left the file at: any other size means SQLite grew it (or a checkpoint cut it). */
  private filledTo = -1;
  /** The salts of the WAL as the last sync saw them: others mean it started over. */
  private salts = -1n;
  private readonly header = Buffer.alloc(INDEX_HEADER_BYTES);

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

  /**
   * Only once the database is closed: SQLite's locks are POSIX locks on the `-shm` file, which
   * the close of any descriptor of it in this process would release.
   */
  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    if (this.shm !== undefined) closeSync(this.shm);
    this.fd = undefined;
    this.shm = undefined;
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
    try {
      this.shm = openSync(`${this.path.slice(0, -'-wal'.length)}-shm`, 'r');
    } catch {
      // No hint: every sync stats the WAL.
    }
    return this.fd;
  }

  /**
   * Where SQLite's frames end, from the wal-index header; undefined when that cannot be read, or
   * when the WAL started over since the last call (it may have been cut meanwhile). A stat of
   * the WAL before its fdatasync made the sync itself ~100 µs slower (ext4: after a stat the
   * next write stamps the inode with a fine-grained time, so the inode is dirty at the sync;
   * write + fdatasync 210 -> 330 µs on this disk): the header tells when one is needed without
   * touching the WAL. Only a hint: a wrong one costs a stat, or a commit that grows the file,
   * never a frame, as zeros still go only past the size the stat finds.
   */
  private framesEnd(): number | undefined {
    if (this.shm === undefined) return undefined;
    try {
      if (readSync(this.shm, this.header, 0, INDEX_HEADER_BYTES, 0) < INDEX_HEADER_BYTES) {
        return undefined;
      }
    } catch {
      return undefined;
    }
    const salts = this.header.readBigUInt64LE(SALT_AT);
    const restarted = salts !== this.salts;
    this.salts = salts;
    if (restarted) return undefined;
    const pageSize = this.read16(PAGE_SIZE_AT);
    const frameBytes = (pageSize === 1 ? 65536 : pageSize) + FRAME_HEADER_BYTES;
    return WAL_HEADER_BYTES + this.read32(LAST_FRAME_AT) * frameBytes;
  }

  private read16(at: number): number {
    return LITTLE_ENDIAN ? this.header.readUInt16LE(at) : this.header.readUInt16BE(at);
  }

  private read32(at: number): number {
    return LITTLE_ENDIAN ? this.header.readUInt32LE(at) : this.header.readUInt32BE(at);
  }

  /**
   * When SQLite's frames come within MIN_FILL_BYTES of the zeros' end (or passed it, or the
   * file was cut), fills the next stretch. A fill that fails (a full disk) only leaves SQLite to
   * grow the file itself, as without it; a partial one leaves the file at a size that has the
   * next commit try again.
   */
  private fillAhead(fd: number): void {
    const framesEnd = this.framesEnd();
    if (framesEnd !== undefined && framesEnd + MIN_FILL_BYTES <= this.filledTo) return;
    try {
      const size = fstatSync(fd).size;
      const near = framesEnd !== undefined && framesEnd + MIN_FILL_BYTES > size;
      // At the limit the WAL starts over rather than grow.
      if ((size === this.filledTo && !near) || size >= this.limit) {
        this.filledTo = size;
        return;
      }
      const fill = Math.min(Math.max(size, MIN_FILL_BYTES), MAX_FILL_BYTES);
      const end = Math.min(size + fill, this.limit);
      writeSync(fd, zeros, 0, end - size, size);
      this.filledTo = end;
    } catch {
      // Nothing filled: the sync still covers what SQLite wrote.
    }
  }
}
