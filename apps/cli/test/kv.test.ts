import { describe, expect, it } from 'vitest';
import { jetStreamServers, slipSuite } from './slip.js';

describe.each(jetStreamServers)('kv commands against $name with JetStream', ({ start }) => {
  const { server, home, run } = slipSuite(start);

  it('kv add, put, get (--raw, --revision, --json), ls and status', async () => {
    const added = await run('kv', 'add', 'CFG', '--history', '5', '--description', 'settings');
    expect(added.stdout).toMatch(/^Information for Key-Value Store Bucket CFG created /);
    expect(added.stdout).toMatch(/ History Kept: 5\n/);
    expect(await run('kv', 'put', 'CFG', 'color', 'blue')).toEqual({
      code: 0,
      stdout: 'blue\n',
      stderr: '',
    });
    expect((await run('kv', 'put', 'CFG', 'color', 'red')).code).toBe(0);
    expect(
      (await home().run(['-s', server().url, 'kv', 'put', 'CFG', 'size'], undefined, 'from stdin'))
        .stdout,
    ).toBe('from stdin\n');
    expect((await run('kv', 'get', 'CFG', 'color', '--raw')).stdout).toBe('red\n');
    expect((await run('kv', 'get', 'CFG', 'color', '--revision', '1', '--raw')).stdout).toBe(
      'blue\n',
    );
    expect((await run('kv', 'get', 'CFG', 'color')).stdout).toMatch(
      /^CFG > color revision 2 created @ \S+\n\nred\n/,
    );
    expect(JSON.parse((await run('--json', 'kv', 'get', 'CFG', 'size')).stdout)).toMatchObject({
      bucket: 'CFG',
      key: 'size',
      revision: 3,
      operation: 'PUT',
      value: 'from stdin',
    });
    expect((await run('kv', 'ls', 'CFG')).stdout).toBe('color\nsize\n');
    expect((await run('kv', 'ls')).stdout).toMatch(
      /│ CFG +│ settings +│ [\d-]+ [\d:]+ +│ \d+ B +│ 3 +│ 5 +│ forever │/,
    );
    expect(JSON.parse((await run('--json', 'kv', 'status', 'CFG')).stdout)).toMatchObject({
      bucket: 'CFG',
      values: 3,
      history: 5,
    });
  });

  it('kv create only for a new key, update only from the given revision', async () => {
    expect((await run('kv', 'create', 'CFG', 'shape', 'round')).code).toBe(0);
    expect(await run('kv', 'create', 'CFG', 'shape', 'square')).toEqual({
      code: 1,
      stdout: '',
      stderr: 'slip: error: key "shape" already has a value in bucket CFG\n',
    });
    expect(await run('kv', 'update', 'CFG', 'color', 'green', '1')).toEqual({
      code: 1,
      stdout: '',
      stderr: 'slip: error: wrong last sequence: 2 (status 400, err_code 10071)\n',
    });
    expect((await run('kv', 'update', 'CFG', 'color', 'green', '2')).stdout).toBe('green\n');
    const history = await run('kv', 'history', 'CFG', 'color');
    expect(history.stdout).toMatch(
      /│ color │ 1 +│ PUT │ \S+ │ 4 +│ blue +│[\s\S]*│ color │ 2 +│ PUT │[\s\S]*│ red +│[\s\S]*│ green │/,
    );
  });

  it('kv watch prints the current values then each change; del and purge; rm', async () => {
    const watch = home().start(['-s', server().url, 'kv', 'watch', 'CFG', 'color']);
    await watch.printed('PUT CFG > color: green');
    await run('kv', 'put', 'CFG', 'color', 'black');
    await watch.printed('PUT CFG > color: black');
    expect((await run('kv', 'del', 'CFG', 'color', '-f')).stderr).toBe('Deleted key CFG > color\n');
    await watch.printed('DEL CFG > color');
    watch.signal('SIGINT');
    const watched = await watch.done;
    expect(watched.code).toBe(0);
    expect(watched.stdout).not.toContain('size');
    expect((await run('kv', 'get', 'CFG', 'color')).stderr).toBe(
      'slip: error: key "color" not found in bucket CFG\n',
    );
    expect((await run('kv', 'purge', 'CFG', 'size', '-f')).code).toBe(0);
    expect((await run('kv', 'ls', 'CFG')).stdout).toBe('shape\n');
    expect((await run('kv', 'rm', 'CFG')).stderr).toBe(
      'slip: error: add --force to delete bucket CFG without a terminal to confirm it\n',
    );
    expect((await run('kv', 'rm', 'CFG', '-f')).stderr).toBe('Deleted bucket CFG\n');
    expect((await run('kv', 'ls')).stderr).toBe('No Key-Value buckets found\n');
  });
});
