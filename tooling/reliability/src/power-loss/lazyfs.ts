import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { requireSystemComponent } from '@slipstream/test-servers';

/** The C source of our FUSE filesystem (../lazyfs/lazyfs.c from src/ or dist/). */
const source = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', 'lazyfs', 'lazyfs.c');

/**
 * Compiles lazyfs into `dir` with cc and libfuse3 (never a committed binary) and returns the
 * executable's path. Skips the calling test where FUSE 3 is not installed.
 */
export function buildLazyfs(dir: string): string {
  requireSystemComponent('fuse');
  const flags = execFileSync('pkg-config', ['fuse3', '--cflags', '--libs'], { encoding: 'utf8' })
    .trim()
    .split(/\s+/);
  const binary = join(dir, 'lazyfs');
  execFileSync('cc', ['-O2', '-Wall', '-o', binary, source, ...flags], { stdio: 'pipe' });
  return binary;
}

/**
 * One mount of lazyfs: `mountPoint` shows `backingDir`, keeping every unsynced write in the
 * lazyfs process. `crash()` is the power loss: the process is killed, its unsynced data with
 * it, and the dead mount is detached; `mount()` again serves what the backing directory holds.
 */
export class LazyFs {
  #process: ChildProcess | undefined;
  #output = '';

  constructor(
    private readonly binary: string,
    readonly backingDir: string,
    readonly mountPoint: string,
    /** While this file exists, every fsync on the mount fails with EIO. */
    readonly failFsyncFlag: string,
  ) {
    mkdirSync(backingDir, { recursive: true });
    mkdirSync(mountPoint, { recursive: true });
  }

  async mount(): Promise<void> {
    const child = spawn(
      this.binary,
      [this.backingDir, this.mountPoint, '--fail-fsync-if', this.failFsyncFlag],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    this.#process = child;
    this.#output = '';
    child.stdout.on('data', (chunk) => (this.#output += chunk));
    child.stderr.on('data', (chunk) => (this.#output += chunk));
    const deadline = Date.now() + 10_000;
    while (!this.mounted()) {
      if (child.exitCode !== null || Date.now() > deadline) {
        throw new Error(`lazyfs did not mount ${this.mountPoint}: ${this.#output.trim()}`);
      }
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  /** Power loss: what was not synced is gone; the backing directory holds what was. */
  async crash(): Promise<void> {
    const child = this.#process;
    this.#process = undefined;
    if (child && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGKILL');
      await exited;
    }
    this.#detach();
  }

  mounted(): boolean {
    return readFileSync('/proc/mounts', 'utf8')
      .split('\n')
      .some((line) => line.split(' ')[1] === this.mountPoint);
  }

  #detach(): void {
    if (!this.mounted()) return;
    execFileSync(requireSystemComponent('fuse'), ['-u', '-z', this.mountPoint], { stdio: 'pipe' });
  }
}
