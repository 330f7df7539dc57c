import { createHash, randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { failure, jetStreamServers, slipSuite, startJetStreamServer } from './slip.js';

describe.each(jetStreamServers)('obj commands against $name with JetStream', ({ start }) => {
  const { server, home, run } = slipSuite(start);
  // 1 MiB and a bit: several chunks, the last one short.
  const content = randomBytes(1024 * 1024 + 123);
  let file: string;

  beforeAll(async () => {
    file = join(home().dir, 'data.bin');
    await writeFile(file, content);
  });

  it('obj add, put a file, get it back byte for byte (to a file and to stdout), ls and info', async () => {
    expect((await run('obj', 'add', 'FILES', '--description', 'test files')).stdout).toMatch(
      /^Information for Object Store Bucket FILES created .*\n\n {4}Description: test files\n/,
    );
    const put = await run('obj', 'put', 'FILES', file);
    expect(put.code).toBe(0);
    expect(put.stdout).toMatch(/^Object information for FILES > data\.bin:\n\n\s+Size: 1\.0 MiB\n/);
    expect(put.stdout).toMatch(/ Digest: SHA-256=\S+\n/);
    const copy = join(home().dir, 'copy.bin');
    const get = await run('obj', 'get', 'FILES', 'data.bin', '-O', copy);
    expect(get).toEqual({ code: 0, stdout: '', stderr: `Wrote 1.0 MiB to ${copy}\n` });
    expect(Buffer.compare(await readFile(copy), content)).toBe(0);

    const small = join(home().dir, 'note.txt');
    await writeFile(small, 'a small note');
    expect((await run('obj', 'put', 'FILES', small, '--name', 'notes/first.txt')).code).toBe(0);
    expect(await run('obj', 'get', 'FILES', 'notes/first.txt', '-O', '-')).toEqual({
      code: 0,
      stdout: 'a small note',
      stderr: '',
    });
    expect((await run('obj', 'ls', 'FILES')).stdout).toMatch(
      /│ data\.bin +│ 1\.0 MiB │ [\d-]+ [\d:]+ │\n[\s\S]*│ notes\/first\.txt │ 12 B +│/,
    );
    expect((await run('obj', 'ls')).stdout).toMatch(
      /│ FILES +│ test files +│ [\d-]+ [\d:]+ │ 1\.0 MiB +│ no +│/,
    );
    const info = JSON.parse((await run('--json', 'obj', 'info', 'FILES', 'data.bin')).stdout);
    expect(info).toMatchObject({
      bucket: 'FILES',
      name: 'data.bin',
      size: content.length,
      deleted: false,
    });
    expect(info.chunks).toBeGreaterThan(1);
  });

  it('obj watch sees the objects and then changes; rm deletes an object; seal makes the bucket read-only', async () => {
    const watch = home().start(['-s', server().url, 'obj', 'watch', 'FILES']);
    await watch.printed('PUT FILES > data.bin: 1.0 MiB');
    expect((await run('obj', 'rm', 'FILES', 'notes/first.txt', '-f')).stderr).toBe(
      'Deleted object FILES > notes/first.txt\n',
    );
    await watch.printed('DEL FILES > notes/first.txt');
    watch.signal('SIGINT');
    expect((await watch.done).code).toBe(0);
    expect((await run('obj', 'get', 'FILES', 'notes/first.txt', '-O', '-')).stderr).toBe(
      'slip: error: no object "notes/first.txt" in bucket FILES\n',
    );
    expect((await run('obj', 'seal', 'FILES', '-f')).stderr).toBe('Sealed bucket FILES\n');
    expect((await run('obj', 'status', 'FILES')).stdout).toMatch(/ Sealed: yes\n/);
    const refused = await run('obj', 'put', 'FILES', file, '--name', 'more.bin');
    expect(refused).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/^slip: error: .*sealed.* \(status 400, err_code 10109\)\n$/),
    });
    expect((await run('obj', 'rm', 'FILES', '-f')).stderr).toBe('Deleted bucket FILES\n');
    expect((await run('obj', 'ls')).stderr).toBe('No Object Store buckets found\n');
  });
});

describe("obj commands through slipstream-server's $OBJ API (--server-assembled, --server-api)", () => {
  const { home, run } = slipSuite(startJetStreamServer);
  const content = randomBytes(300 * 1024 + 5);

  it('put assembled by the server, then get, info, ls and rm by request; each readable the other way', async () => {
    const file = join(home().dir, 'data.bin');
    await writeFile(file, content);
    expect((await run('obj', 'add', 'API')).code).toBe(0);
    const put = await run('obj', 'put', 'API', file, '--server-assembled', '--name', 'a.bin');
    expect(put.stderr).toBe('');
    expect(put.code).toBe(0);
    expect(put.stdout).toMatch(/^Object information for API > a\.bin:\n\n\s+Size: 300\.0 KiB\n/);
    const digest = `SHA-256=${createHash('sha256').update(content).digest('base64url')}=`;
    expect(put.stdout).toContain(`Digest: ${digest}\n`);
    // read back through JetStream, and through the API
    const viaJs = join(home().dir, 'js.bin');
    expect((await run('obj', 'get', 'API', 'a.bin', '-O', viaJs)).code).toBe(0);
    expect(Buffer.compare(await readFile(viaJs), content)).toBe(0);
    const viaApi = join(home().dir, 'api.bin');
    expect(await run('obj', 'get', 'API', 'a.bin', '-O', viaApi, '--server-api')).toEqual({
      code: 0,
      stdout: '',
      stderr: `Wrote 300.0 KiB to ${viaApi}\n`,
    });
    expect(Buffer.compare(await readFile(viaApi), content)).toBe(0);

    // put through JetStream, listed and described through the API
    const note = join(home().dir, 'note.txt');
    await writeFile(note, 'a small note');
    expect((await run('obj', 'put', 'API', note)).code).toBe(0);
    expect((await run('obj', 'ls', 'API', '--server-api')).stdout).toMatch(
      /│ a\.bin +│ 300\.0 KiB │ [\d-]+ [\d:]+ │\n[\s\S]*│ note\.txt │ 12 B +│/,
    );
    const info = JSON.parse(
      (await run('--json', 'obj', 'info', 'API', 'a.bin', '--server-api')).stdout,
    );
    expect(info).toMatchObject({ bucket: 'API', name: 'a.bin', size: content.length, digest });

    expect((await run('obj', 'rm', 'API', 'note.txt', '-f', '--server-api')).stderr).toBe(
      'Deleted object API > note.txt\n',
    );
    expect(await run('obj', 'info', 'API', 'note.txt')).toEqual(
      failure('no object "note.txt" in bucket API'),
    );
    expect(await run('obj', 'info', 'API', 'note.txt', '--server-api')).toEqual(
      failure('no object "note.txt" in bucket API'),
    );
  });
});
