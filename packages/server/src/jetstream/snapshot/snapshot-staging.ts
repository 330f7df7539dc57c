/**
 * Where snapshots and restores keep their work in progress:
 * `<storeDir>/jetstream/<account>/staging/<id>/`, beside (never inside) the streams directory,
 * so a half-written copy is never mistaken for a stream at start. What a crash left there is
 * cleared when the account starts.
 */
import { rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { nuid } from '@slipstream/protocol';
import { streamsDir } from '../stream/stream-files.js';

function stagingRoot(storeDir: string, account: string): string {
  return join(dirname(streamsDir(storeDir, account)), 'staging');
}

/** A fresh directory path for one snapshot or restore (created by whoever writes into it). */
export function newStagingDir(storeDir: string, account: string): string {
  return join(stagingRoot(storeDir, account), nuid.next());
}

export function clearStaging(storeDir: string, account: string): void {
  rmSync(stagingRoot(storeDir, account), { recursive: true, force: true });
}
