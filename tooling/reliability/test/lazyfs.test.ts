// lazyfs, the filesystem the power-loss cycles run on: after its crash the files hold exactly
// what was synced, no more and no less.
import {
  closeSync,
  fdatasyncSync,
  fsyncSync,
  ftruncateSync,
  mkdtempSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildLazyfs, LazyFs } from '../src/power-loss/lazyfs.js';

describe('lazyfs', () => {
  const dir = mkdtempSync(join(tmpdir(), 'lazyfs-test-'));
  let fs: LazyFs;
  const onMount = (name: string) => join(fs.mountPoint, name);

  beforeAll(async () => {
    fs = new LazyFs(buildLazyfs(dir), join(dir, 'backing'), join(dir, 'mount'), join(dir, 'eio'));
    await fs.mount();
  });
  afterAll(async () => {
    await fs?.crash();
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves unsynced writes until the crash, then only what was synced', async () => {
    const fd = openSync(onMount('data'), 'w+');
    writeSync(fd, 'synced ');
    fdatasyncSync(fd);
    writeSync(fd, 'unsynced');
    closeSync(fd); // a close is no sync
    writeFileSync(onMount('never-synced'), 'gone');
    expect(readFileSync(onMount('data'), 'utf8')).toBe('synced unsynced');

    await fs.crash();
    await fs.mount();
    expect(readFileSync(onMount('data'), 'utf8')).toBe('synced ');
    // its directory entry survives (namespace operations are not delayed), its data does not
    expect(readFileSync(onMount('never-synced'), 'utf8')).toBe('');
  });

  it('syncs a file through any descriptor, with its truncation and across a rename', async () => {
    const writer = openSync(onMount('log'), 'w+');
    writeSync(writer, 'x'.repeat(10_000));
    ftruncateSync(writer, 5_000);
    writeSync(writer, 'tail', 6_000); // a hole of zeros from 5,000 to 6,000
    renameSync(onMount('log'), onMount('log.moved'));
    const syncer = openSync(onMount('log.moved'), 'r');
    fsyncSync(syncer);
    closeSync(syncer);
    writeSync(writer, 'lost', 0);
    closeSync(writer);

    await fs.crash();
    await fs.mount();
    const survived = readFileSync(onMount('log.moved'));
    expect(survived.length).toBe(6_004);
    expect(survived.subarray(0, 5_000).toString()).toBe('x'.repeat(5_000));
    expect(survived.subarray(5_000, 6_000).every((byte) => byte === 0)).toBe(true);
    expect(survived.subarray(6_000).toString()).toBe('tail');
  });

  it('fails fsync with EIO while the switch file exists, keeping the data unsynced', async () => {
    const fd = openSync(onMount('eio'), 'w+');
    writeSync(fd, 'kept only in memory');
    writeFileSync(fs.failFsyncFlag, '');
    expect(() => fsyncSync(fd)).toThrow(expect.objectContaining({ code: 'EIO' }));
    rmSync(fs.failFsyncFlag);
    closeSync(fd);
    await fs.crash();
    await fs.mount();
    expect(readFileSync(onMount('eio'), 'utf8')).toBe('');
  });
});
