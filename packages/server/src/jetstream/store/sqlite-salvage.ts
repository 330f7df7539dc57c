/**
 * A stream's SQLite file looked at before the store opens it, and rebuilt when it is damaged:
 * the server's own recovery at start. `inspectSqliteFile` reads every message once (checksum,
 * then SQLite's integrity check) on a read-only connection, which neither writes the file nor
 * folds its WAL into it. `salvageSqliteFile` copies every message and consumer that still reads
 * intact into a new file, checked row by row so that one damaged page costs only its rows, then
 * moves the damaged files into the directory its caller names (nothing is deleted) and puts the
 * new file in their place; a failure before that last step leaves the files as they were.
 */
import {
  closeSync,
  copyFileSync,
  existsSync,
  fstatSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  renameSync,
  rmSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type Database from 'better-sqlite3';
import type { LastSequence } from './last-sequence-file.js';
import { decodePayload } from './payload-codec.js';
import { sqlite } from './sqlite-module.js';
import { consumerChecksum, messageChecksum, SCHEMA } from './sqlite-schema.js';
import { walDamage } from './wal-check.js';

/** What a start finds wrong with a stream's file: messages failing their checksum, or worse. */
export interface FileDamage {
  seqs: number[];
  /** The file's structure is damaged (SQLite's words): messages may be missing. */
  structure?: string;
}

/** nats-server's LostStreamData: the messages that could not be read, and their bytes. */
export interface LostMessages {
  msgs: number[];
  bytes: number;
}

export interface Salvage {
  /** The directory the damaged files were moved to. */
  aside: string;
  /** Messages copied into the new file. */
  kept: number;
  lost: LostMessages;
  /** Consumers whose saved row could not be read (or all of them, as `*`). */
  lostConsumers: string[];
  /** Consumers whose saved state alone was damaged: kept, starting over. */
  resetConsumers: string[];
}

const SUFFIXES = ['', '-wal', '-shm'] as const;

/**
 * The damage in `file` and its WAL, or undefined when every message reads intact and the file
 * reaches `recorded`, the last sequence its store recorded outside it (last-sequence-file.ts).
 */
export function inspectSqliteFile(file: string, recorded?: LastSequence): FileDamage | undefined {
  const wal = `${file}-wal`;
  if (existsSync(wal)) {
    const damage = walDamage(wal, pageSizeOf(file));
    if (damage) return { seqs: [], structure: damage };
  }
  const Sqlite = sqlite();
  const db = new Sqlite(file, { readonly: true, fileMustExist: true });
  try {
    db.pragma('cell_size_check = ON');
    const seqs: number[] = [];
    let structure: string | undefined;
    try {
      const rows = db
        .prepare(
          `SELECT seq, time, subject, headers, payload, checksum, ${encodingOf(db)} FROM messages ORDER BY seq`,
        )
        .safeIntegers(true)
        .raw(true)
        .iterate() as Iterable<RowColumns>;
      for (const row of rows) if (!intact(row)) seqs.push(Number(row[0]));
      const check = db.pragma('integrity_check(1)', { simple: true });
      if (check !== 'ok') structure = String(check);
      structure ??= damagedConsumer(db);
      const last = lastSeqOf(db);
      if (recorded && last < recorded.seq) {
        structure ??= `its newest messages are missing: it ends at sequence ${last}, messages.last records ${recorded.seq}`;
      }
    } catch (error) {
      structure = (error as Error).message;
    }
    return seqs.length > 0 || structure ? { seqs, structure } : undefined;
  } finally {
    db.close();
  }
}

/** The last sequence the file itself tells: its saved sequence state, or its highest row. */
function lastSeqOf(db: Database.Database): number {
  const saved = db.prepare('SELECT last_seq FROM sequence_state WHERE id = 1').pluck().get() as
    | number
    | undefined;
  const highest = db.prepare('SELECT max(seq) FROM messages').pluck().get() as number | null;
  return Math.max(saved ?? 0, highest ?? 0);
}

type RowColumns = [
  seq: bigint,
  time: bigint,
  subject: string,
  headers: Buffer | null,
  payload: Buffer,
  checksum: bigint,
  encoding: bigint,
];

/** A file from before compression has no encoding column (sqlite-schema.ts's addEncodingColumn). */
function encodingOf(db: Database.Database): string {
  const columns = attempt(() => db.pragma('table_info(messages)') as Array<{ name: string }>);
  return columns && !columns.some((column) => column.name === 'encoding')
    ? '0 AS encoding'
    : 'encoding';
}

function intact([seq, time, subject, headers, payload, checksum, encoding]: RowColumns): boolean {
  let decoded: Buffer;
  try {
    decoded = decodePayload(payload, Number(encoding));
  } catch {
    return false;
  }
  const expected = messageChecksum(Number(seq), time, subject, headers ?? undefined, decoded);
  return BigInt(expected) === checksum;
}

/**
 * Rebuilds `file` from what still reads intact: the database and its WAL's frames up to the
 * first that does not check out (as SQLite reads them; a WAL with a damaged header is ignored
 * whole). Every sequence up to `recorded` (the store's last, recorded outside the file) that is
 * not read back is lost, and none of them is handed out again. Throws, leaving the files as they
 * were, when nothing of it can be opened (a damaged header: SQLite's "file is not a database").
 */
export function salvageSqliteFile(
  file: string,
  aside: () => string,
  recorded?: LastSequence,
): Salvage {
  const dir = dirname(file);
  const work = join(dir, 'salvage.tmp');
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work);
  try {
    // The damaged files are read through a copy: opening them would rewrite them.
    const copy = join(work, 'damaged.db');
    copyFileSync(file, copy);
    if (existsSync(`${file}-wal`)) copyFileSync(`${file}-wal`, `${copy}-wal`);
    const rebuilt = join(work, 'rebuilt.db');
    const salvaged = copyIntact(copy, rebuilt, highestRowid(copy), recorded);
    syncFile(rebuilt);
    const into = aside();
    for (const suffix of SUFFIXES) {
      const path = file + suffix;
      if (existsSync(path)) renameSync(path, join(into, basename(path)));
    }
    renameSync(rebuilt, file);
    syncFile(dir);
    return { aside: into, ...salvaged };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

function copyIntact(
  from: string,
  to: string,
  named: number,
  recorded: LastSequence | undefined,
): Omit<Salvage, 'aside'> {
  const Sqlite = sqlite();
  const source = new Sqlite(from, { fileMustExist: true });
  const target = new Sqlite(to);
  try {
    // Opens a file shorter than its header says (truncated), which SQLite otherwise refuses
    // whole; set before anything reads the schema. Unsafe mode (better-sqlite3 turns SQLite's
    // defensive mode on, which ignores writable_schema) only on this scratch copy.
    source.unsafeMode(true);
    source.pragma('writable_schema = ON');
    source.pragma('cell_size_check = ON');
    // Fails on a file that is no database at all: nothing to salvage.
    source.pragma('schema_version');
    target.exec(SCHEMA);
    const lost: LostMessages = { msgs: [], bytes: 0 };
    let last = { seq: 0, time: 0n };
    const saved = attempt(
      () =>
        source
          .prepare('SELECT last_seq, last_time FROM sequence_state WHERE id = 1')
          .safeIntegers(true)
          .get() as { last_seq: bigint; last_time: bigint } | undefined,
    );
    if (saved) last = { seq: Number(saved.last_seq), time: saved.last_time };
    const highest = attempt(
      () => source.prepare('SELECT max(seq) FROM messages').pluck().get() as number | null,
    );
    const insert = target.prepare(
      'INSERT INTO messages (seq, time, subject, headers, payload, size, checksum, encoding) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    );
    if (recorded && recorded.seq > last.seq) last = { seq: recorded.seq, time: recorded.time };
    const upper = Math.max(last.seq, highest ?? 0, named);
    // Without the recorded last sequence (a store from before it), the newest rows are out of
    // reach when SQLite cannot find the highest one, or when the file's end is gone: as many
    // sequences as the missing pages may have held past every key left are skipped, never handed
    // out again, and counted lost, since messages may have been there.
    const guessed = !recorded && (highest === undefined || endCut(from));
    const end = guessed ? upper + unreachableTail(from) : upper;
    // Where the walk first met damage: every sequence past it that is not read back is lost
    // (a damaged tree can also skip rows without an error).
    let damagedFrom: number | undefined = guessed || highest === undefined ? upper : undefined;
    // A damaged tree can skip rows without any read failing: then every gap from the first row
    // on counts (messages deleted before included, as they cannot be told apart).
    const structural =
      attempt(() => source.pragma('integrity_check(1)', { simple: true })) !== 'ok';
    const kept = new Set<number>();
    target.transaction(() => {
      for (const found of walkRows(source, upper)) {
        if (found.probed || structural) {
          damagedFrom = Math.min(damagedFrom ?? found.seq, found.seq - 1);
        }
        if ('row' in found && intact(found.row)) {
          insert.run(...found.row.slice(0, 5), found.size, ...found.row.slice(5));
          kept.add(found.seq);
          if (found.seq >= last.seq) last = { seq: found.seq, time: found.row[1] };
        } else {
          damagedFrom = Math.min(damagedFrom ?? found.seq, found.seq - 1);
          lost.msgs.push(found.seq);
          lost.bytes += found.size;
        }
      }
      // The subject index names sequences from pages of its own: one it names that was not read
      // back is lost, and with the tree damaged its lowest tells where the messages began.
      const indexed = indexedSeqs(source);
      if (structural && indexed.length > 0) {
        // A loop, not Math.min(...indexed): a spread of many sequences overflows the stack.
        let lowest = damagedFrom ?? Number.MAX_SAFE_INTEGER;
        for (const seq of indexed) lowest = Math.min(lowest, seq - 1);
        damagedFrom = lowest;
      }
      const listed = new Set(lost.msgs);
      const noteLost = (seq: number) => {
        if (kept.has(seq) || listed.has(seq)) return;
        listed.add(seq);
        lost.msgs.push(seq);
      };
      if (damagedFrom !== undefined) {
        for (let seq = damagedFrom + 1; seq <= end; seq++) noteLost(seq);
      }
      for (const seq of indexed) if (seq <= end) noteLost(seq);
      lost.msgs.sort((a, b) => a - b);
      last.seq = Math.max(last.seq, end);
      target
        .prepare('INSERT INTO sequence_state (id, last_seq, last_time) VALUES (1, ?, ?)')
        .run(last.seq, last.time);
    })();
    const consumers = copyConsumers(source, target);
    return {
      kept: kept.size,
      lost,
      lostConsumers: consumers.lost,
      resetConsumers: consumers.reset,
    };
  } finally {
    source.close();
    target.close();
  }
}

/** The sequences the subject index holds, read from its pages alone, as far as they read. */
function indexedSeqs(db: Database.Database): number[] {
  const seqs: number[] = [];
  try {
    const rows = db
      .prepare('SELECT seq FROM messages INDEXED BY messages_by_subject')
      .pluck()
      .iterate() as Iterable<number>;
    for (const seq of rows) seqs.push(seq);
  } catch {
    // What was read before the damage still counts.
  }
  return seqs;
}

/** Rows of a message at their smallest (a one-letter subject, an empty payload), in bytes. */
const SMALLEST_ROW = 24;

/**
 * How many rows the pages the file no longer has may have held: the pages its header counts
 * past those whole, or at least the one being written, each full of the smallest rows.
 */
function unreachableTail(file: string): number {
  const { pageSize, whole, counted } = pagesOf(file);
  return Math.max(1, counted - whole) * Math.ceil(pageSize / SMALLEST_ROW);
}

/**
 * Whether the file's end is gone: it ends inside a page, or before the pages its header counts.
 * SQLite reads a page cut short as zeros past the cut, which can hide its newest rows while the
 * rows before them, and the highest key, still read.
 */
function endCut(file: string): boolean {
  const { whole, counted, partial } = pagesOf(file);
  return partial || counted > whole;
}

/**
 * The file's page size, its whole pages, whether a piece of one follows them, and the pages
 * its header counts (when that count is valid: its change counter matches; else 0).
 */
function pagesOf(file: string): {
  pageSize: number;
  whole: number;
  partial: boolean;
  counted: number;
} {
  const pageSize = pageSizeOf(file);
  const header = Buffer.alloc(100);
  const fd = openSync(file, 'r');
  let size: number;
  try {
    readSync(fd, header, 0, 100, 0);
    size = fstatSync(fd).size;
  } finally {
    closeSync(fd);
  }
  const counted = header.readUInt32BE(24) === header.readUInt32BE(92) ? header.readUInt32BE(28) : 0;
  return {
    pageSize,
    whole: Math.floor(size / pageSize),
    partial: size % pageSize !== 0,
    counted,
  };
}

/** One sequence the walk met; `probed` when SQLite could not find it from the one before. */
type Found = { seq: number; size: number; probed: boolean } & (
  | { row: RowColumns }
  | { unreadable: true }
);

/**
 * Every sequence that has a row, in order, read one by one: where SQLite cannot find the next
 * row past a damaged page, each following sequence up to `upper` (the highest one the file
 * names) is tried on its own.
 */
function* walkRows(db: Database.Database, upper: number): Generator<Found> {
  const next = db.prepare('SELECT seq FROM messages WHERE seq > ? ORDER BY seq LIMIT 1').pluck();
  const one = db
    .prepare(
      `SELECT seq, time, subject, headers, payload, checksum, ${encodingOf(db)}, size FROM messages WHERE seq = ?`,
    )
    .safeIntegers(true)
    .raw(true);
  let after = 0;
  for (;;) {
    let seq: number | undefined;
    try {
      seq = next.get(after) as number | undefined;
      // A damaged page can also misorder what it leads to.
      if (seq !== undefined && seq <= after) throw new Error('out of order');
    } catch {
      seq = undefined;
    }
    // Nothing found past `after` (or no way past it), though the file names sequences up to
    // `upper`: the next one is tried on its own, and one not found there counts as unreadable
    // too (it may have been deleted before; it may as well sit on a page that is gone).
    const probing = seq === undefined;
    if (probing) {
      if (after >= upper) return;
      seq = after + 1;
    }
    after = seq!;
    let columns: [...RowColumns, bigint] | undefined;
    let unreadable = false;
    try {
      columns = one.get(after) as [...RowColumns, bigint] | undefined;
      unreadable = columns ? Number(columns[0]) !== after : probing;
    } catch {
      unreadable = true;
    }
    if (unreadable) yield { seq: after, size: 0, probed: probing, unreadable: true };
    if (unreadable || !columns) continue;
    const size = Number(columns[7]);
    yield {
      seq: after,
      size: Number.isSafeInteger(size) ? size : 0,
      probed: probing,
      row: columns.slice(0, 7) as RowColumns,
    };
  }
}

/**
 * The highest row id any table page of the file (and of its WAL) names, read from the pages
 * themselves: when the pages that lead to the newest messages are gone (a truncated file), this
 * is what still tells how far the sequences went, so that fewer are handed out a second time.
 * Other tables' row ids are small; a freed page's are old sequences: neither goes past it.
 * Messages on a lost last page past every key still in the file cannot be told.
 */
export function highestRowid(file: string): number {
  const bytes = readFileSync(file);
  const pageSize = pageSizeOf(file);
  let highest = 0;
  for (let at = 0; at + pageSize <= bytes.length; at += pageSize) {
    highest = Math.max(highest, pageRowids(bytes.subarray(at, at + pageSize), at === 0 ? 100 : 0));
  }
  const wal = `${file}-wal`;
  if (existsSync(wal)) {
    const frames = readFileSync(wal);
    const frame = 24 + pageSize;
    for (let at = 32; at + frame <= frames.length; at += frame) {
      highest = Math.max(highest, pageRowids(frames.subarray(at + 24, at + frame), 0));
    }
  }
  return highest;
}

/** The page size the database's header gives, or SQLite's default where it cannot tell. */
function pageSizeOf(file: string): number {
  const header = Buffer.alloc(18);
  const fd = openSync(file, 'r');
  try {
    readSync(fd, header, 0, 18, 0);
  } finally {
    closeSync(fd);
  }
  const raw = header.readUInt16BE(16);
  const size = raw === 1 ? 65536 : raw;
  return size >= 512 && (size & (size - 1)) === 0 ? size : 4096;
}

/**
 * The highest row id a table page names: a leaf's (type 13) cells hold payload size then row id,
 * an interior page's (type 5) a child page number then the highest row id under that child.
 */
function pageRowids(page: Buffer, header: number): number {
  const type = page[header];
  if (type !== 13 && type !== 5) return 0;
  const cells = page.readUInt16BE(header + 3);
  const pointers = header + (type === 13 ? 8 : 12);
  let highest = 0;
  for (let i = 0; i < cells; i++) {
    const pointer = pointers + i * 2;
    if (pointer + 2 > page.length) break;
    const cell = page.readUInt16BE(pointer);
    const rowid = readVarint(page, type === 13 ? skipVarint(page, cell) : cell + 4);
    if (rowid !== undefined && Number.isSafeInteger(rowid)) highest = Math.max(highest, rowid);
  }
  return highest;
}

function skipVarint(page: Buffer, at: number): number {
  for (let i = 0; i < 9 && at < page.length; i++) if ((page[at++]! & 0x80) === 0) break;
  return at;
}

/** SQLite's varint: up to 8 bytes of 7 bits, big-endian, then a 9th of 8 bits. */
function readVarint(page: Buffer, at: number): number | undefined {
  let value = 0n;
  for (let i = 0; i < 9; i++) {
    if (at + i >= page.length) return undefined;
    const byte = page[at + i]!;
    if (i === 8) return Number((value << 8n) | BigInt(byte));
    value = (value << 7n) | BigInt(byte & 0x7f);
    if ((byte & 0x80) === 0) return Number(value);
  }
  return undefined;
}

/** A consumer row as the checks read it; the checksums are null in files from before them. */
interface ConsumerRow {
  name: string;
  config: string;
  created: bigint;
  state: string | null;
  config_checksum: bigint | null;
  state_checksum: bigint | null;
}

function selectConsumers(db: Database.Database, where = ''): Database.Statement {
  const columns = attempt(() => db.pragma('table_info(consumers)') as Array<{ name: string }>);
  const checksums = columns?.some((column) => column.name === 'config_checksum')
    ? 'config_checksum, state_checksum'
    : 'NULL AS config_checksum, NULL AS state_checksum';
  return db
    .prepare(`SELECT name, config, created, state, ${checksums} FROM consumers ${where}`)
    .safeIntegers(true);
}

/** Whether a consumer row's config, and its state, are as written. */
function consumerIntact(row: ConsumerRow): { config: boolean; state: boolean } {
  const config =
    parses(row.config) &&
    (row.config_checksum === null ||
      BigInt(consumerChecksum(row.name, row.config, row.created)) === row.config_checksum);
  const state =
    row.state === null ||
    (parses(row.state) &&
      (row.state_checksum === null ||
        BigInt(consumerChecksum(row.name, row.state)) === row.state_checksum));
  return { config, state };
}

/** The first consumer row whose config or state is not as written, in words. */
function damagedConsumer(db: Database.Database): string | undefined {
  for (const row of selectConsumers(db).iterate() as Iterable<ConsumerRow>) {
    const { config, state } = consumerIntact(row);
    if (!config || !state) {
      return `consumer '${row.name}' is damaged (${config ? 'state' : 'config'} checksum mismatch)`;
    }
  }
  return undefined;
}

/**
 * Copies the consumers' rows that read intact. One whose config is damaged is lost; one whose
 * state alone is damaged is kept without it, so it starts over and delivers again (at least once,
 * never a message skipped by a damaged ack floor).
 */
function copyConsumers(
  source: Database.Database,
  target: Database.Database,
): { lost: string[]; reset: string[] } {
  const names = attempt(
    () => source.prepare('SELECT name FROM consumers ORDER BY name').pluck().all() as string[],
  );
  if (!names) return { lost: ['*'], reset: [] };
  const select = selectConsumers(source, 'WHERE name = ?');
  const insert = target.prepare(
    'INSERT INTO consumers (name, config, created, state, config_checksum, state_checksum) VALUES (?, ?, ?, ?, ?, ?)',
  );
  const lost: string[] = [];
  const reset: string[] = [];
  for (const name of names) {
    const row = attempt(() => select.get(name) as ConsumerRow | undefined);
    const intact = row && consumerIntact(row);
    if (!row || !intact?.config) {
      lost.push(name);
      continue;
    }
    const checksum = consumerChecksum(row.name, row.config, row.created);
    if (intact.state) {
      const stateChecksum = row.state === null ? null : consumerChecksum(row.name, row.state);
      insert.run(row.name, row.config, row.created, row.state, checksum, stateChecksum);
    } else {
      reset.push(name);
      insert.run(row.name, row.config, row.created, null, checksum, null);
    }
  }
  return { lost, reset };
}

function parses(json: string): boolean {
  try {
    JSON.parse(json);
    return true;
  } catch {
    return false;
  }
}

function attempt<T>(read: () => T): T | undefined {
  try {
    return read();
  } catch {
    return undefined;
  }
}

function syncFile(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
