/**
 * `persist_mode` (nats-server 2.12): `async` is accepted on a file stream only, cannot be
 * changed by an update, and acknowledges a publish without waiting for the disk sync: on our
 * store the lazy sync mode, so no fdatasync of the WAL per PubAck (a `default` stream on a
 * server with `syncInterval: 'always'` syncs before each). Follows TestJetStreamPersistModeAsync
 * (nats-server v2.12.1 server/jetstream_test.go:21986) and the checks of checkStreamCfg
 * (v2.12.1 server/stream.go:1673-1683). nats-server 2.9.10 has no persist_mode: answers are
 * written out.
 */
import type * as fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type ConsumerTarget, ConsumerWire, startOurs } from './jetstream-consumer-wire.js';

// Records the file of every sync (wal-file.ts syncs with fs.fdatasync on the thread pool, or
// with fs.fdatasyncSync for a commit of one publish alone). By file, not a bare count: another
// stream's idle checkpoint (100 ms after its last write) syncs its messages.last meanwhile.
const synced = vi.hoisted(() => ({ paths: [] as string[] }));
vi.mock('node:fs', async (importOriginal) => {
  const actual = await importOriginal<typeof fs>();
  const record = (fd: number) => synced.paths.push(actual.readlinkSync(`/proc/self/fd/${fd}`));
  const fdatasync = (fd: number, callback: (error: NodeJS.ErrnoException | null) => void) => {
    record(fd);
    actual.fdatasync(fd, callback);
  };
  const fdatasyncSync = (fd: number) => {
    record(fd);
    actual.fdatasyncSync(fd);
  };
  const counted = { fdatasync, fdatasyncSync };
  return { ...actual, default: { ...actual, ...counted }, ...counted };
});

const invalidConfig = (err: string) => ({ code: 500, err_code: 10052, description: err });

describe('persist_mode as nats-server 2.12 (TestJetStreamPersistModeAsync)', () => {
  let target: ConsumerTarget;
  let wire: ConsumerWire;

  beforeAll(async () => {
    target = await startOurs();
    wire = await ConsumerWire.connect(target.port);
  });
  afterAll(async () => {
    wire?.close();
    await target?.stop();
  });

  const create = (config: object) =>
    wire.request(`$JS.API.STREAM.CREATE.${(config as { name: string }).name}`, config);

  it('refuses async on memory storage, takes it on file storage and shows it', async () => {
    const config = { name: 'TEST', subjects: ['foo'], storage: 'memory', persist_mode: 'async' };
    expect((await create(config)).error).toEqual(
      invalidConfig('async persist mode is only supported on file storage'),
    );
    const created = await create({ ...config, storage: 'file' });
    expect(created.error).toBeUndefined();
    const shown = (created as { config: Record<string, unknown> }).config;
    expect(shown.persist_mode).toBe('async');
    // The async persist mode needs API level 2 (jetstream_versioning.go:81 at v2.12.1).
    expect((shown.metadata as Record<string, string>)['_nats.req.level']).toBe('2');
    const ack = await wire.request('foo', 'x');
    expect(ack).toEqual({ stream: 'TEST', seq: 1 });
  });

  it('refuses a change of persist mode on update', async () => {
    const update = await wire.request('$JS.API.STREAM.UPDATE.TEST', {
      name: 'TEST',
      subjects: ['foo'],
      storage: 'file',
      persist_mode: 'default',
    });
    expect(update.error).toEqual(
      invalidConfig('stream configuration update can not change persist mode'),
    );
  });

  it('leaves "default" out of the config, as Go omits its zero value', async () => {
    const created = await create({ name: 'PLAIN', subjects: ['plain'], persist_mode: 'default' });
    const shown = (created as { config: Record<string, unknown> }).config;
    expect(shown).not.toHaveProperty('persist_mode');
    expect((shown.metadata as Record<string, string>)['_nats.req.level']).toBe('0');
  });

  // Go reads "" as the default mode (PersistModeType.UnmarshalJSON, v2.12.15 stream.go:228-236)
  // and its omitempty leaves that zero value out of every answer; an update of a default
  // stream may say "", one of an async stream may not (it changes the mode, stream.go:2191).
  it('takes "" as "default": created, shown without it, and an update saying "" too', async () => {
    const created = await create({ name: 'EMPTY', subjects: ['empty'], persist_mode: '' });
    expect(created.error).toBeUndefined();
    const shown = (created as { config: Record<string, unknown> }).config;
    expect(shown).not.toHaveProperty('persist_mode');
    expect((shown.metadata as Record<string, string>)['_nats.req.level']).toBe('0');
    const info = await wire.request('$JS.API.STREAM.INFO.EMPTY', '');
    expect((info as { config: Record<string, unknown> }).config).not.toHaveProperty('persist_mode');
    const sameAgain = await create({ name: 'EMPTY', subjects: ['empty'], persist_mode: '' });
    expect(sameAgain.error).toBeUndefined();
    const updated = await wire.request('$JS.API.STREAM.UPDATE.EMPTY', {
      name: 'EMPTY',
      subjects: ['empty', 'more'],
      persist_mode: '',
    });
    expect(updated.error).toBeUndefined();
    const toAsync = await wire.request('$JS.API.STREAM.UPDATE.TEST', {
      name: 'TEST',
      subjects: ['foo'],
      storage: 'file',
      persist_mode: '',
    });
    expect(toAsync.error).toEqual(
      invalidConfig('stream configuration update can not change persist mode'),
    );
  });

  it('acks an async stream without a sync of its WAL, a default stream after one', async () => {
    const created = await create({ name: 'ASYNC', subjects: ['async'], persist_mode: 'async' });
    expect((created as { config: { storage: string } }).config.storage).toBe('file');
    const walSyncsOfFive = async (subject: string, stream: string) => {
      const before = synced.paths.length;
      for (let i = 0; i < 5; i++) {
        expect((await wire.request(subject, 'x')).error).toBeUndefined();
      }
      const wal = `/streams/${stream}/messages.db-wal`;
      return synced.paths.slice(before).filter((path) => path.endsWith(wal)).length;
    };
    expect(await walSyncsOfFive('plain', 'PLAIN')).toBeGreaterThanOrEqual(5);
    expect(await walSyncsOfFive('async', 'ASYNC')).toBe(0);
  });
});
