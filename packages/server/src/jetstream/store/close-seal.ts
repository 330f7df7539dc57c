/**
 * A seal a file store leaves when it closes cleanly, so that the next start neither reads every
 * message to look for damage (sqlite-salvage.ts's inspection) nor counts every row by subject
 * (the log's summary): each is seconds per million messages. nats-server likewise trusts the
 * stream state it writes at a clean shutdown (its index.db) and rebuilds from the message
 * blocks only without one.
 *
 * The seal names the database file as the close left it (size, inode, modification and change
 * times) and holds the counts the store kept. Any write to the file since (a bit flipped, a
 * truncation, a copy over it) moves its ctime, which no program can set back, so a seal that
 * still matches means the file holds exactly what the store wrote, checked as it went. A start
 * reads it once, before both the inspection and the open; the store breaks it as it opens,
 * before it writes anything. A seal that is unreadable, stale or missing only means the full
 * inspection and count, never an error.
 *
 * Two lines of JSON, the file and the totals, then every subject's counts as one flat array (one
 * parse, however many subjects); a third line, the CRC-32 of the two, so that a damaged seal is
 * one that does not match rather than wrong counts.
 */
import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { crc32 } from 'node:zlib';
import type { LastSequence } from './last-sequence-file.js';
import type { LogSummary } from './message-log.js';
import type { SubjectState } from './message-store.js';

const sealPath = (databasePath: string) => join(dirname(databasePath), 'messages.sealed');

interface SealHeader {
  size: string;
  ino: string;
  mtimeNs: string;
  ctimeNs: string;
  lastSeq: number;
  lastTime: string;
  bytes: number;
}

const FILE_FIELDS = ['size', 'ino', 'mtimeNs', 'ctimeNs'] as const;

function fileAsItIs(databasePath: string): Pick<SealHeader, (typeof FILE_FIELDS)[number]> {
  const stat = statSync(databasePath, { bigint: true });
  return {
    size: String(stat.size),
    ino: String(stat.ino),
    mtimeNs: String(stat.mtimeNs),
    ctimeNs: String(stat.ctimeNs),
  };
}

/**
 * After a clean close, the WAL folded in and removed: `state` as the store counted it. Not
 * synced, and a failure to write it is ignored: a seal lost to a power loss or a full disk only
 * costs the next start its inspection and count.
 */
export function sealClosedStore(databasePath: string, state: LogSummary): void {
  if (existsSync(`${databasePath}-wal`)) return;
  try {
    const header: SealHeader = {
      ...fileAsItIs(databasePath),
      lastSeq: state.lastSeq,
      lastTime: String(state.lastTime),
      bytes: state.bytes,
    };
    const subjects: Array<string | number> = [];
    for (const [subject, { messages, first, last }] of state.subjects) {
      subjects.push(subject, messages, first, last);
    }
    const text = `${JSON.stringify(header)}\n${JSON.stringify(subjects)}\n`;
    writeFileSync(sealPath(databasePath), `${text}${crc32(text)}\n`);
  } catch {
    // Inspected and counted in full next time.
  }
}

/**
 * The counts the last clean close saved, when the database is still as that close left it and
 * `recorded` (messages.last, read by the caller) still at the sequence it closed at; undefined
 * otherwise. A WAL beside the file means writes after the close.
 */
export function sealedSummary(
  databasePath: string,
  recorded: LastSequence | undefined,
): LogSummary | undefined {
  if (!recorded || existsSync(`${databasePath}-wal`)) return undefined;
  try {
    const sealed = readFileSync(sealPath(databasePath), 'utf8');
    const checksumAt = sealed.lastIndexOf('\n', sealed.length - 2) + 1;
    const text = sealed.slice(0, checksumAt);
    if (String(crc32(text)) !== sealed.slice(checksumAt, -1)) return undefined;
    const lineEnd = text.indexOf('\n');
    const header = JSON.parse(text.slice(0, lineEnd)) as SealHeader;
    const now = fileAsItIs(databasePath);
    if (FILE_FIELDS.some((field) => header[field] !== now[field])) return undefined;
    if (recorded.seq !== header.lastSeq) return undefined;
    const flat = JSON.parse(text.slice(lineEnd + 1, -1)) as Array<string | number>;
    const subjects = new Map<string, SubjectState>();
    for (let i = 0; i < flat.length; i += 4) {
      subjects.set(flat[i] as string, {
        messages: flat[i + 1] as number,
        first: flat[i + 2] as number,
        last: flat[i + 3] as number,
      });
    }
    const { lastSeq, lastTime, bytes } = header;
    return { subjects, bytes, lastSeq, lastTime: BigInt(lastTime) };
  } catch {
    return undefined;
  }
}

/** Before the store writes: from here on only its own clean close may seal the file again. */
export function breakSeal(databasePath: string): void {
  rmSync(sealPath(databasePath), { force: true });
}
