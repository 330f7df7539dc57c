/** The two stores the shared store suites run over, opened in a fresh temporary directory. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openMemoryStore } from '../src/jetstream/store/memory-store.js';
import {
  type MessageStore,
  NO_LIMITS,
  type StoreLimits,
} from '../src/jetstream/store/message-store.js';
import { openSqliteStore } from '../src/jetstream/store/sqlite-store.js';

export interface StoreKind {
  kind: 'memory' | 'sqlite';
  /** Opens the store of `dir` (sqlite: the same file again after a close). */
  open(dir: string, limits?: Partial<StoreLimits>): MessageStore;
}

export function limits(partial: Partial<StoreLimits> = {}): StoreLimits {
  return { ...NO_LIMITS, ...partial };
}

export const STREAM = 'ORDERS';

export function databasePath(dir: string): string {
  return join(dir, `${STREAM}.db`);
}

export const storeKinds: StoreKind[] = [
  {
    kind: 'memory',
    open: (_dir, partial) => openMemoryStore({ name: STREAM, limits: limits(partial) }),
  },
  {
    kind: 'sqlite',
    open: (dir, partial) =>
      openSqliteStore({ name: STREAM, path: databasePath(dir), limits: limits(partial) }),
  },
];

export function temporaryDirectory(): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), 'slipstream-store-'));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

const encoder = new TextEncoder();
export const bytes = (text: string): Uint8Array => encoder.encode(text);
export const text = (data: Uint8Array): string => new TextDecoder().decode(data);
