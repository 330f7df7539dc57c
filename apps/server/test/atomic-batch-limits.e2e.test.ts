/**
 * nats-server 2.12's atomic batch limits read from the config file (`jetstream { limits { batch
 * {...} } }`, TestJetStreamAtomicBatchPublishConfigOpts, jetstream_batching_test.go:719-753 at
 * v2.12.15) reach the running slipstream-server: a batch over `max_msgs` is refused with its size,
 * a second open batch over `max_inflight_per_stream` is refused as incomplete.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, headers, type NatsConnection } from '@nats-io/transport-node';
import { type RunningNatsServer, startNatsServer } from '@slipstream/test-servers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configServers } from './config-servers.js';

const ours = configServers.find((server) => server.name === 'slipstream-server')!;

describe('slipstream-server with jetstream limits { batch {...} }', () => {
  let storeDir = '';
  let server: RunningNatsServer;
  let nc: NatsConnection;
  beforeAll(async () => {
    storeDir = await mkdtemp(join(tmpdir(), 'slipstream-batch-config-'));
    server = await startNatsServer({
      bin: ours.bin,
      config: `jetstream {
  store_dir: "${storeDir}"
  limits { batch { max_inflight_per_stream: 1, max_msgs: 2, timeout: 5s } }
}`,
    });
    nc = await connect({ servers: server.url });
    const created = await nc.request(
      '$JS.API.STREAM.CREATE.TEST',
      JSON.stringify({ name: 'TEST', subjects: ['foo'], allow_atomic: true }),
    );
    expect(created.json<{ error?: unknown }>().error).toBeUndefined();
  });
  afterAll(async () => {
    await nc?.close();
    await server?.stop();
    await rm(storeDir, { recursive: true, force: true });
  });

  const member = (id: string, seq: number, commit = false) => {
    const h = headers();
    h.set('Nats-Batch-Id', id);
    h.set('Nats-Batch-Sequence', String(seq));
    if (commit) h.set('Nats-Batch-Commit', '1');
    return { headers: h, timeout: 2_000 };
  };

  it('refuses a batch over max_msgs and a second open batch', async () => {
    await nc.request('foo', 'a', member('big', 1));
    await nc.request('foo', 'b', member('big', 2));
    const tooLarge = await nc.request('foo', 'c', member('big', 3, true));
    expect(tooLarge.json<{ error: unknown }>().error).toEqual({
      code: 400,
      err_code: 10199,
      description: 'atomic publish batch is too large: 2',
    });
    await nc.request('foo', 'a', member('open', 1));
    const second = await nc.request('foo', 'x', member('other', 1, true));
    expect(second.json<{ error: unknown }>().error).toMatchObject({ err_code: 10176 });
    const committed = await nc.request('foo', 'b', member('open', 2, true));
    expect(committed.json()).toEqual({ stream: 'TEST', seq: 2, batch: 'open', count: 2 });
  });
});
