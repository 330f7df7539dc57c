import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { NatsServer } from '@slipstream/server';

/**
 * Writes `<dir>/slipstream-server_<pid>.ports` as nats-server writes its ports file, so test
 * harnesses that start a server with `-p -1 --ports_file_dir <dir>` can find the ports it picked.
 * Returns the function that removes it again at shutdown.
 */
export function writePortsFile(dir: string, bin: string, server: NatsServer): () => void {
  const file = join(dir, `${bin}_${process.pid}.ports`);
  const ports = {
    nats: [server.url],
    ...(server.httpUrl ? { monitoring: [server.httpUrl] } : {}),
  };
  // Written aside and renamed into place, so a harness polling for the file never reads it half-written.
  writeFileSync(`${file}.tmp`, JSON.stringify(ports));
  renameSync(`${file}.tmp`, file);
  return () => rmSync(file, { force: true });
}
