import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/**
 * The TCP ports a process listens on, on any interface: its socket inodes (from /proc/<pid>/fd)
 * matched against the LISTEN entries of /proc/net/tcp and tcp6. Linux only, as CI is.
 */
export function listeningPorts(pid: number): number[] {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    const target = readLink(`/proc/${pid}/fd/${fd}`);
    const inode = target && /^socket:\[(\d+)\]$/.exec(target)?.[1];
    if (inode) inodes.add(inode);
  }
  const ports = new Set<number>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(table, 'utf8').trim().split('\n').slice(1)) {
      // sl, local address (hex ip:port), remote address, state (0A = LISTEN), …, inode (10th).
      const [, local, , state, , , , , , inode] = line.trim().split(/\s+/);
      if (state === '0A' && inode && inodes.has(inode)) {
        ports.add(Number.parseInt(local!.split(':')[1]!, 16));
      }
    }
  }
  return [...ports].sort((a, b) => a - b);
}

// A descriptor can close between listing and reading it.
function readLink(path: string): string | undefined {
  try {
    return readlinkSync(path);
  } catch {
    return undefined;
  }
}
