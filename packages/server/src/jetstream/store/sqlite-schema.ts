/**
 * The layout of a stream's SQLite file: its tables (messages with a checksum and an encoding per
 * row, the last sequence and time, the consumers), the column a file from before compression
 * lacks, the messages' rows as read, the prepared statements over them, the CRC-32 a row
 * carries and what an SQLite error code says about the file.
 */
import { crc32 } from 'node:zlib';
import type Database from 'better-sqlite3';
import { reflectedCrcTable } from '../../crc-table.js';
import { sqlite } from './sqlite-module.js';

export const SCHEMA = `
  CREATE TABLE IF NOT EXISTS messages (
    seq INTEGER PRIMARY KEY,
    time INTEGER NOT NULL,
    subject TEXT NOT NULL,
    headers BLOB,
    payload BLOB NOT NULL,
    size INTEGER NOT NULL,
    checksum INTEGER NOT NULL,
    encoding INTEGER NOT NULL DEFAULT 0
  );
  CREATE INDEX IF NOT EXISTS messages_by_subject ON messages (subject, seq);
  CREATE TABLE IF NOT EXISTS sequence_state (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    last_seq INTEGER NOT NULL,
    last_time INTEGER NOT NULL
  );
  CREATE TABLE IF NOT EXISTS consumers (
    name TEXT PRIMARY KEY,
    config TEXT NOT NULL,
    created INTEGER NOT NULL,
    state TEXT,
    config_checksum INTEGER,
    state_checksum INTEGER
  );
`;

/** How many rows a scan reads per query: no statement stays open between yields. */
export const SCAN_BATCH = 512;

export interface MessageRow {
  time: bigint;
  subject: string;
  headers: Buffer | null;
  payload: Buffer;
  checksum: bigint;
  /** How the payload is kept (payload-codec.ts). */
  encoding: bigint;
}

const positionBuffer = new DataView(new ArrayBuffer(16));
const positionBytes = new Uint8Array(positionBuffer.buffer);
/** zlib's CRC-32, walked in JS over the position and the subject (see below). */
const CRC32_TABLE = reflectedCrcTable(0xedb88320);

/**
 * CRC-32 over everything a reader relies on, so a flipped bit anywhere is caught. It is taken at
 * every append and checked at every read: the 16 bytes of position and a subject (ASCII nearly
 * always) are walked with a table, which costs less than zlib's per-call overhead (~75 ns a
 * message of a pull consume's ~280); headers and payload go to zlib.
 */
export function messageChecksum(
  seq: number,
  time: bigint,
  subject: string,
  headers: Uint8Array | undefined,
  payload: Uint8Array,
): number {
  positionBuffer.setFloat64(0, seq);
  positionBuffer.setBigInt64(8, time);
  const table = CRC32_TABLE;
  let crc = 0xffffffff;
  for (let i = 0; i < 16; i++) crc = table[(crc ^ positionBytes[i]!) & 0xff]! ^ (crc >>> 8);
  let ascii = 0;
  for (; ascii < subject.length; ascii++) {
    const code = subject.charCodeAt(ascii);
    if (code > 0x7f) break;
    crc = table[(crc ^ code) & 0xff]! ^ (crc >>> 8);
  }
  let checksum = (crc ^ 0xffffffff) >>> 0;
  // The rest from the first character that is not ASCII, as UTF-8.
  if (ascii < subject.length) checksum = crc32(subject.slice(ascii), checksum);
  // zlib answers 0 for a buffer without memory behind it (an empty blob), so skip empties.
  if (headers && headers.length > 0) checksum = crc32(headers, checksum);
  return payload.length > 0 ? crc32(payload, checksum) : checksum;
}

/** A file written before payloads could be compressed gets the column saying they are not. */
export function addEncodingColumn(db: Database.Database): void {
  const columns = db.pragma('table_info(messages)') as Array<{ name: string }>;
  if (!columns.some((column) => column.name === 'encoding')) {
    db.exec('ALTER TABLE messages ADD COLUMN encoding INTEGER NOT NULL DEFAULT 0');
  }
}

/**
 * A file written before consumer rows carried checksums gets the columns (empty: such a row is
 * taken as it is).
 */
export function addConsumerChecksumColumns(db: Database.Database): void {
  const columns = db.pragma('table_info(consumers)') as Array<{ name: string }>;
  if (!columns.some((column) => column.name === 'config_checksum')) {
    db.exec('ALTER TABLE consumers ADD COLUMN config_checksum INTEGER');
    db.exec('ALTER TABLE consumers ADD COLUMN state_checksum INTEGER');
  }
}

/**
 * CRC-32 of a consumer row's config (with its name and creation time) or of its state (with its
 * name): a flipped bit in either is found at start instead of changing what the consumer does.
 */
export function consumerChecksum(name: string, text: string, created?: bigint): number {
  let checksum = crc32(name);
  if (created !== undefined) checksum = crc32(`\0${created}`, checksum);
  return crc32(`\0${text}`, checksum);
}

export function sqliteCode(error: unknown): string {
  return error instanceof sqlite().SqliteError ? error.code : '';
}

export function isDamage(code: string): boolean {
  return code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB';
}

/**
 * The prepared statements over the messages and sequence_state tables, each prepared on its first
 * use: a start reopens every stream, and a stream that is only restored (nobody publishes to it
 * or reads it yet) prepares none of them.
 */
export class MessageStatements {
  readonly #db: Database.Database;
  #insert: Database.Statement | undefined;
  #selectMessage: Database.Statement | undefined;
  #selectEntry: Database.Statement | undefined;
  #selectAheadEntries: Database.Statement | undefined;
  #selectAheadBodies: Database.Statement | undefined;
  #deleteOne: Database.Statement | undefined;
  #tallyRange: Database.Statement | undefined;
  #deleteRange: Database.Statement | undefined;
  #selectPrev: Database.Statement | undefined;
  #selectNextOfSubject: Database.Statement | undefined;
  #selectPrevOfSubject: Database.Statement | undefined;
  #countOfSubject: Database.Statement | undefined;
  #selectScan: Database.Statement | undefined;
  #selectTimeFrom: Database.Statement | undefined;
  #saveSequenceState: Database.Statement | undefined;
  #touch: Database.Statement | undefined;

  constructor(db: Database.Database) {
    this.#db = db;
  }

  get insert(): Database.Statement {
    return (this.#insert ??= this.#db.prepare(
      'INSERT INTO messages (seq, time, subject, headers, payload, size, checksum, encoding) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    ));
  }

  get selectMessage(): Database.Statement {
    return (this.#selectMessage ??= this.#db
      .prepare(
        'SELECT time, subject, headers, payload, checksum, encoding FROM messages WHERE seq = ?',
      )
      .safeIntegers(true));
  }

  /**
   * From a sequence on, at most a number of rows, one text entry each (read-ahead-entries.ts),
   * end to end in sequence order in one blob. printf turns the numbers into text in one call
   * (a NULL into 0); octet_length reads a payload's size without its bytes. A damaged row's NULL
   * subject is read as empty rather than dropping the entry, which would shift every later row's
   * bytes onto the wrong message.
   */
  get selectAheadEntries(): Database.Statement {
    return (this.#selectAheadEntries ??= this.#db
      .prepare(
        `SELECT CAST(group_concat(entry, '') AS BLOB) FROM (
           SELECT printf('%d %d %d %d %d %d %d %d ', seq, time, ifnull(octet_length(headers), -1),
             octet_length(payload), checksum, encoding, size, octet_length(subject)) || ifnull(subject, '') AS entry
           FROM messages WHERE seq >= ? ORDER BY seq LIMIT ?)`,
      )
      .pluck());
  }

  /**
   * The headers and payloads of the rows from the first sequence to the second, end to end in
   * sequence order (a range of the rowid is walked in order). better-sqlite3 makes a Buffer of
   * every BLOB it returns, which cost as much as all of a read-ahead row's other columns and left
   * the garbage collector an ArrayBuffer per message; this is one. `||` and group_concat take a
   * BLOB's bytes as they are (the file is UTF-8, so no conversion), and the CAST gives them back
   * as a BLOB. A NULL (a damaged row) counts as no bytes, as its entry says.
   */
  get selectAheadBodies(): Database.Statement {
    return (this.#selectAheadBodies ??= this.#db
      .prepare(
        "SELECT CAST(group_concat(ifnull(headers, X'') || ifnull(payload, X''), '') AS BLOB) FROM messages WHERE seq BETWEEN ? AND ?",
      )
      .pluck());
  }

  get selectEntry(): Database.Statement {
    return (this.#selectEntry ??= this.#db
      .prepare('SELECT subject, time, size FROM messages WHERE seq = ?')
      .safeIntegers(true));
  }

  get deleteOne(): Database.Statement {
    return (this.#deleteOne ??= this.#db.prepare('DELETE FROM messages WHERE seq = ?'));
  }

  get tallyRange(): Database.Statement {
    return (this.#tallyRange ??= this.#db.prepare(
      'SELECT subject, count(*) AS messages, sum(size) AS bytes FROM messages WHERE seq BETWEEN ? AND ? GROUP BY subject',
    ));
  }

  get deleteRange(): Database.Statement {
    return (this.#deleteRange ??= this.#db.prepare(
      'DELETE FROM messages WHERE seq BETWEEN ? AND ?',
    ));
  }

  get selectPrev(): Database.Statement {
    return (this.#selectPrev ??= this.#db
      .prepare('SELECT seq FROM messages WHERE seq < ? ORDER BY seq DESC LIMIT 1')
      .pluck());
  }

  get selectNextOfSubject(): Database.Statement {
    return (this.#selectNextOfSubject ??= this.#db
      .prepare('SELECT seq FROM messages WHERE subject = ? AND seq > ? ORDER BY seq LIMIT 1')
      .pluck());
  }

  get selectPrevOfSubject(): Database.Statement {
    return (this.#selectPrevOfSubject ??= this.#db
      .prepare('SELECT seq FROM messages WHERE subject = ? AND seq < ? ORDER BY seq DESC LIMIT 1')
      .pluck());
  }

  get countOfSubject(): Database.Statement {
    return (this.#countOfSubject ??= this.#db
      .prepare('SELECT count(*) FROM messages WHERE subject = ? AND seq >= ?')
      .pluck());
  }

  get selectScan(): Database.Statement {
    return (this.#selectScan ??= this.#db.prepare(
      `SELECT seq, subject FROM messages WHERE seq >= ? ORDER BY seq LIMIT ${SCAN_BATCH}`,
    ));
  }

  /** The first message at or after a sequence, as [seq, time]: a step of the search by time. */
  get selectTimeFrom(): Database.Statement {
    return (this.#selectTimeFrom ??= this.#db
      .prepare('SELECT seq, time FROM messages WHERE seq >= ? ORDER BY seq LIMIT 1')
      .safeIntegers(true)
      .raw(true));
  }

  get saveSequenceState(): Database.Statement {
    return (this.#saveSequenceState ??= this.#db.prepare(
      'INSERT OR REPLACE INTO sequence_state (id, last_seq, last_time) VALUES (1, ?, ?)',
    ));
  }

  /** A read of one small page, for a transaction that only has to happen (its locks' end). */
  get touch(): Database.Statement {
    return (this.#touch ??= this.#db.prepare('SELECT last_seq FROM sequence_state'));
  }
}
