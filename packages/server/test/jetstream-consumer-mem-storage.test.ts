/**
 * `mem_storage: true` on a consumer of a file stream keeps the consumer in memory only: nats-server
 * 2.9.10 gives it a memory consumer store (filestore.go ConsumerStore), so nothing of it reaches
 * the stream's directory and a restart finds only the stream's other consumers. Side by side:
 * nats-server 2.9.10 and ours, each restarted on its own store.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startNatsServer } from '@slipstream/test-servers';
import { expect, it } from 'vitest';
import { type Answer, ConsumerRequests, errorOf } from './jetstream-consumer-requests.js';
import { ConsumerWire, sleep, startOursOn } from './jetstream-consumer-wire.js';

/** A server on a store that outlives `restart`. */
interface RestartableTarget {
  readonly port: number;
  restart(): Promise<RestartableTarget>;
  stop(): Promise<void>;
}

async function reference(): Promise<RestartableTarget> {
  const wrap = (server: Awaited<ReturnType<typeof startNatsServer>>): RestartableTarget => ({
    port: server.port,
    restart: async () => wrap(await server.restart()),
    stop: () => server.stop(),
  });
  return wrap(await startNatsServer({ jetstream: true }));
}

async function ours(): Promise<RestartableTarget> {
  const storeDir = await mkdtemp(join(tmpdir(), 'slipstream-consumer-mem-'));
  const launch = async (): Promise<RestartableTarget> => {
    const server = await startOursOn(storeDir);
    return {
      port: server.port,
      restart: async () => {
        await server.close();
        return launch();
      },
      stop: async () => {
        await server.close();
        await rm(storeDir, { recursive: true, force: true });
      },
    };
  };
  return launch();
}

/** Waits until the consumer has no unacknowledged delivery (acks are not confirmed). */
async function settled(js: ConsumerRequests, name: string): Promise<Answer> {
  for (;;) {
    const info = await js.info('S', name);
    if (info.num_ack_pending === 0) return info;
    await sleep(20);
  }
}

const positions = (info: Answer) => ({
  error: errorOf(info)?.err_code,
  delivered: (info.delivered as Answer | undefined)?.stream_seq,
  ack_floor: (info.ack_floor as Answer | undefined)?.stream_seq,
  num_pending: info.num_pending,
});

/** Two consumers of a file stream, one in memory, each two messages in; then a restart. */
async function scenario(start: () => Promise<RestartableTarget>): Promise<unknown> {
  let target = await start();
  let wire = await ConsumerWire.connect(target.port);
  try {
    let js = new ConsumerRequests(wire);
    await js.stream({ name: 'S', subjects: ['s.>'], storage: 'file' }, ['s.1', 's.2', 's.3']);
    const before: Answer = {};
    for (const [name, memory] of [
      ['MEM', true],
      ['FILE', false],
    ] as const) {
      const config = { durable_name: name, ack_policy: 'explicit', mem_storage: memory };
      const created = await js.consumer('S', config);
      before[name] = {
        created: errorOf(created),
        mem_storage: (created.config as Answer).mem_storage,
      };
      expect(await js.pull('S', name, 2)).toEqual(['s.1:m1', 's.2:m2']);
      (before[name] as Answer).info = positions(await settled(js, name));
    }
    wire.close();
    target = await target.restart();
    wire = await ConsumerWire.connect(target.port);
    js = new ConsumerRequests(wire);
    const names = await wire.request('$JS.API.CONSUMER.NAMES.S');
    return {
      before,
      after: {
        names: names.consumers,
        MEM: positions(await js.info('S', 'MEM')),
        FILE: positions(await js.info('S', 'FILE')),
        // A consumer of that name may be made again, from the start of the stream.
        again: positions(await js.consumer('S', { durable_name: 'MEM', ack_policy: 'explicit' })),
      },
    };
  } finally {
    wire.close();
    await target.stop();
  }
}

it('a mem_storage consumer of a file stream is gone after a restart, its file sibling stays', async () => {
  const expected = await scenario(reference);
  expect(await scenario(ours)).toEqual(expected);
  expect(expected).toMatchObject({
    after: { names: ['FILE'], MEM: { error: 10014 }, FILE: { delivered: 2, ack_floor: 2 } },
  });
}, 30_000);
