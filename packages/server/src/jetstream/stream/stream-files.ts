/**
 * Where a stream lives on disk: `<storeDir>/jetstream/<account>/streams/<name>/` holding
 * `meta.json` (config and creation time) and `messages.db` (the SQLite store), the layout of
 * nats-server's store directory. Names become directory names only through `encodeName`,
 * so no name can reach outside its folder.
 */
import {
  closeSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import type { StreamConfig } from '@slipstream/jsapi';

export interface StreamMeta {
  config: StreamConfig;
  /** Creation time, nanoseconds since the epoch. */
  created: bigint;
}

/**
 * A file-safe name: letters, digits, `-` and `_` as they are, every other UTF-8 byte as `%XX`.
 * One-to-one, so two names never share a directory, and `%` cannot start a dot file.
 */
export function encodeName(name: string): string {
  let out = '';
  for (const byte of Buffer.from(name)) {
    const c = String.fromCharCode(byte);
    out += /[A-Za-z0-9_-]/.test(c) ? c : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

export function decodeName(encoded: string): string {
  return Buffer.from(
    encoded.replace(/%([0-9A-F]{2})|(.)/g, (_m, hex: string | undefined, c: string | undefined) =>
      hex ? String.fromCharCode(Number.parseInt(hex, 16)) : c!,
    ),
    'latin1',
  ).toString();
}

export function streamsDir(storeDir: string, account: string): string {
  return join(storeDir, 'jetstream', encodeName(account), 'streams');
}

export function streamDir(storeDir: string, account: string, name: string): string {
  return join(streamsDir(storeDir, account), encodeName(name));
}

export const messagesFile = (dir: string) => join(dir, 'messages.db');

/**
 * A directory inside the stream's for the files a start found damaged, named by the start's
 * time, made on first use: nothing damaged is deleted, it waits there for a person.
 */
export function damagedFilesDir(dir: string, now: Date): () => string {
  const aside = join(dir, `damaged-${now.toISOString().replace(/[:.]/g, '-')}`);
  return () => {
    mkdirSync(aside, { recursive: true });
    return aside;
  };
}

/** The stream's meta file, and its copy, which a start reads when the first is damaged. */
const META = 'meta.json';
const META_COPY = 'meta.copy.json';

/**
 * Writes meta.json, then its copy, each so that a crash leaves the old or the new file, never
 * half of one. Each carries a CRC-32 of the rest, so that a flipped bit which leaves valid JSON
 * (a digit of a limit, a letter of a subject) is found instead of changing the stream.
 */
export function writeStreamMeta(dir: string, meta: StreamMeta): void {
  mkdirSync(dir, { recursive: true });
  const body = { config: meta.config, created: meta.created.toString() };
  const text = JSON.stringify({ ...body, checksum: metaChecksum(body) });
  for (const name of [META, META_COPY]) writeSynced(dir, name, text);
  syncPath(dir);
}

function writeSynced(dir: string, name: string, text: string): void {
  const temp = join(dir, `${name}.tmp`);
  writeFileSync(temp, text);
  syncPath(temp);
  renameSync(temp, join(dir, name));
}

/**
 * The stream's meta, from meta.json or, when that is damaged, from its copy; the damaged one is
 * rewritten from the other, after being moved into `aside()` (`repaired` says which and why).
 * A missing copy (a stream from before there was one) is written quietly. Throws when neither
 * reads: missing, no JSON, or failing its checksum (a file written before it had none passes).
 */
export function readStreamMeta(
  dir: string,
  aside: () => string,
): StreamMeta & { repaired?: string } {
  const first = attemptMeta(dir, META);
  const second = attemptMeta(dir, META_COPY);
  if ('meta' in first && 'meta' in second) return first.meta;
  const [good, bad] = 'meta' in first ? [first, second] : [second, first];
  if (!('meta' in good) || 'meta' in bad) throw new Error('error' in first ? first.error : '');
  const badPath = join(dir, bad.name);
  // A stream from before there was a copy: nothing is damaged, the copy is made now.
  const damaged = bad.name === META || existsSync(badPath);
  if (existsSync(badPath)) renameSync(badPath, join(aside(), bad.name));
  writeSynced(dir, bad.name, readFileSync(join(dir, good.name), 'utf8'));
  syncPath(dir);
  if (!damaged) return good.meta;
  return { ...good.meta, repaired: `${bad.error}; rewritten from ${good.name}` };
}

type MetaFile = { name: string } & ({ meta: StreamMeta } | { error: string });

function attemptMeta(dir: string, name: string): MetaFile {
  try {
    const { checksum, ...body } = JSON.parse(readFileSync(join(dir, name), 'utf8')) as {
      config: StreamConfig;
      created: string;
      checksum?: number;
    };
    if (checksum !== undefined && checksum !== metaChecksum(body)) {
      return { name, error: `${name} is damaged (checksum mismatch)` };
    }
    return { name, meta: { config: body.config, created: BigInt(body.created) } };
  } catch (error) {
    return { name, error: `${name} is damaged: ${(error as Error).message}` };
  }
}

const metaChecksum = (body: { config: StreamConfig; created: string }) =>
  crc32(JSON.stringify({ config: body.config, created: body.created }));

/** The stream directories found under an account, by decoded stream name. */
export function listStreamDirs(storeDir: string, account: string): Map<string, string> {
  const root = streamsDir(storeDir, account);
  const found = new Map<string, string>();
  let entries: string[];
  try {
    entries = readdirSync(root);
  } catch {
    return found;
  }
  for (const entry of entries) found.set(decodeName(entry), join(root, entry));
  return found;
}

export function removeStreamDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

function syncPath(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
