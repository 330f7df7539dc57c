/**
 * Where a stream lives on disk: `<storeDir>/jetstream/<account>/streams/<name>/` holding
 * `meta.json` (config and creation time) and `messages.db` (the SQLite store), the layout of
 * nats-server's store directory. Names become directory names only through `encodeName`,
 * so no name can reach outside its folder.
 */
import {
  closeSync,
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
 * Writes meta.json so that a crash leaves the old or the new file, never half of one. It carries
 * a CRC-32 of the rest, so that a flipped bit which leaves valid JSON (a digit of a limit, a
 * letter of a subject) is found instead of changing the stream.
 */
export function writeStreamMeta(dir: string, meta: StreamMeta): void {
  mkdirSync(dir, { recursive: true });
  const body = { config: meta.config, created: meta.created.toString() };
  const text = JSON.stringify({ ...body, checksum: metaChecksum(body) });
  const temp = join(dir, 'meta.json.tmp');
  writeFileSync(temp, text);
  syncPath(temp);
  renameSync(temp, join(dir, 'meta.json'));
  syncPath(dir);
}

/** Throws when meta.json is missing, no JSON, or fails its checksum (files written before it had none). */
export function readStreamMeta(dir: string): StreamMeta {
  const { checksum, ...body } = JSON.parse(readFileSync(join(dir, 'meta.json'), 'utf8')) as {
    config: StreamConfig;
    created: string;
    checksum?: number;
  };
  if (checksum !== undefined && checksum !== metaChecksum(body)) {
    throw new Error('meta.json is damaged (checksum mismatch)');
  }
  return { config: body.config, created: BigInt(body.created) };
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
