/**
 * `js.startBatch` (atomic batch publish, nats-server 2.12) against our server, which has it, and
 * nats-server 2.9.10, which stores each message on its own: there the first message is refused
 * by the client with a clear error instead of a batch that silently is not one. The official
 * client's startBatch (@nats-io/jetstream 3.4) commits on our server as well.
 */
import { jetstream as officialJetstream } from '@nats-io/jetstream';
import { connect } from '@slipstream/client';
import { startNatsServer } from '@slipstream/test-servers';
import { describe, expect, it } from 'vitest';
import { JetStreamError, jetstream, jetstreamManager } from '../src/mod.js';
import { expectApiError } from './api-errors.js';
import { useOfficialConnection } from './official.js';
import { ourServers, uniqueStream, useJetStreamClients } from './servers.js';

describe.each(ourServers)('startBatch against $name', (kind) => {
  const { server, clients } = useJetStreamClients(kind);
  const official = useOfficialConnection(server);

  async function atomicStream(): Promise<string> {
    const name = uniqueStream('B');
    await clients.jsm.streams.add({ name, subjects: [`${name}.>`], allow_atomic: true });
    return name;
  }

  it('stages, adds with and without acks, and commits the whole batch', async () => {
    const name = await atomicStream();
    const batch = await clients.js.startBatch(`${name}.a`, 'one');
    expect(batch.count).toBe(1);
    batch.add(`${name}.b`, 'two');
    await batch.add(`${name}.c`, 'three', { ack: true });
    expect(batch.count).toBe(3);
    const ack = await batch.commit(`${name}.d`, 'four');
    expect(ack).toEqual({ stream: name, seq: 4, duplicate: false, batch: batch.id, count: 4 });
    const last = await clients.jsm.streams.getMessage(name, { seq: 4 });
    expect(last!.string()).toBe('four');
    expect(last!.header.get('Nats-Batch-Id')).toBe(batch.id);
    expect(last!.header.get('Nats-Batch-Commit')).toBe('1');
    // Done: nothing more goes into it.
    expect(() => batch.add(`${name}.e`)).toThrow('batch publisher is done');
    await expect(batch.commit(`${name}.e`)).rejects.toThrow('batch publisher is done');
  });

  it("throws the server's refusal of the commit, and nothing of the batch is stored", async () => {
    const name = await atomicStream();
    await clients.js.publish(`${name}.a`, 'first');
    const batch = await clients.js.startBatch(`${name}.a`, 'x');
    batch.add(`${name}.b`, 'y', { expect: { lastSequence: 2 } });
    // Only the first message may name the stream's last sequence.
    await expectApiError(batch.commit(`${name}.c`, 'z', {}), 400, 10164);
    const info = await clients.jsm.streams.info(name);
    expect(info.state.messages).toBe(1);
    const refused = await clients.js.startBatch(`${name}.a`, 'x', { expect: { lastSequence: 7 } });
    await expectApiError(refused.commit(`${name}.b`), 400, 10071);
  });

  it('refuses a batch on a stream without allow_atomic at its first message', async () => {
    const name = uniqueStream('B');
    await clients.jsm.streams.add({ name, subjects: [`${name}.>`] });
    await expectApiError(clients.js.startBatch(`${name}.a`, 'x'), 400, 10174);
  });

  it('takes the official client’s batch (@nats-io/jetstream startBatch)', async () => {
    const name = await atomicStream();
    const js = officialJetstream(official.nc);
    const batch = await js.startBatch(`${name}.a`, 'one');
    batch.add(`${name}.b`, 'two');
    const ack = await batch.commit(`${name}.c`, 'three');
    expect(ack).toMatchObject({ stream: name, seq: 3, batch: batch.id, count: 3 });
  });
});

describe('startBatch against nats-server 2.9.10', () => {
  it('says the server has no atomic batch publish instead of pretending', async () => {
    const server = await startNatsServer({ jetstream: true });
    const nc = await connect({ servers: server.url });
    try {
      const jsm = await jetstreamManager(nc);
      await jsm.streams.add({ name: 'OLD', subjects: ['old.>'] });
      const started = jetstream(nc).startBatch('old.a', 'x');
      await expect(started).rejects.toBeInstanceOf(JetStreamError);
      await expect(started).rejects.toThrow('no atomic batch publish');
    } finally {
      await nc.close();
      await server.stop();
    }
  });
});
