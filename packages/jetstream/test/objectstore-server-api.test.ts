/**
 * Objm's `serverApi` option: put assembled by our server, and get / info / list / delete by
 * request on `$OBJ.<bucket>`. Objects go both ways between this and the JetStream path (which
 * the official clients share); the server's JSON errors become our error classes. nats-server
 * has no such API: against it the option fails with a clear error.
 */
import { createHash } from 'node:crypto';
import { connect, type NatsConnection } from '@slipstream/client';
import { startSlipstreamServer } from '@slipstream/test-servers';
import { describe, expect, it } from 'vitest';
import { InvalidNameError, JetStreamError, StreamNotFoundError } from '../src/mod.js';
import { type ObjectStore, ObjectStoreApiError, Objm } from '../src/objectstore/mod.js';
import { ourServers, streamServers, uniqueStream, useJetStreamClients } from './servers.js';

const bytes = (n: number, seed = 7) => Uint8Array.from({ length: n }, (_, i) => (i * seed) % 251);

const officialDigest = (data: Uint8Array) =>
  `SHA-256=${createHash('sha256').update(data).digest('base64url')}=`;

/** A stream of `data` in pieces of `size`, none aligned with the chunks. */
function piecesOf(data: Uint8Array, size: number): ReadableStream<Uint8Array> {
  let offset = 0;
  return new ReadableStream({
    pull(controller) {
      if (offset >= data.length) return controller.close();
      controller.enqueue(data.slice(offset, offset + size));
      offset += size;
    },
  });
}

const same = (a: Uint8Array | null, b: Uint8Array) => a !== null && Buffer.compare(a, b) === 0;

describe.each(ourServers)('objectstore with serverApi against $name', (kind) => {
  const { clients } = useJetStreamClients(kind);
  /** The same bucket twice: through the $OBJ API, and through JetStream. */
  const bucketPair = async (): Promise<{ api: ObjectStore; js: ObjectStore }> => {
    const bucket = uniqueStream('SA');
    const js = await new Objm(clients.js).create(bucket);
    const api = await new Objm(clients.nc, { serverApi: true }).open(bucket);
    return { api, js };
  };

  it.each([0, 1, 128 * 1024, 128 * 1024 + 1, 1024 * 1024 + 7])(
    'a put of %i bytes assembled by the server reads back both ways',
    async (size) => {
      const { api, js } = await bucketPair();
      const data = bytes(size);
      const info = await api.put({ name: 'o', description: 'd', metadata: { k: 'v' } }, data);
      expect(info).toMatchObject({
        name: 'o',
        description: 'd',
        metadata: { k: 'v' },
        size,
        chunks: Math.ceil(size / (128 * 1024)),
        digest: officialDigest(data),
        deleted: false,
        revision: 0,
      });
      expect(info.nuid).toMatch(/^\w{22}$/);
      expect(same(await js.getBlob('o'), data)).toBe(true);
      expect(same(await api.getBlob('o'), data)).toBe(true);
      const stored = await js.info('o');
      expect(stored).toMatchObject({ nuid: info.nuid, digest: info.digest, size });
      expect(await api.info('o')).toEqual({ ...stored, revision: 0 });
    },
  );

  it('a put from a stream announces the given size; without one it is refused before anything is sent', async () => {
    const { api, js } = await bucketPair();
    const data = bytes(300_000);
    await expect(api.put({ name: 's' }, piecesOf(data, 10_000))).rejects.toThrow(
      /give a stream source its size/,
    );
    const info = await api.put({ name: 's' }, piecesOf(data, 10_000), { size: data.length });
    expect(info).toMatchObject({ size: data.length, chunks: 3 });
    expect(same(await js.getBlob('s'), data)).toBe(true);
    // a smaller max_chunk_size is announced and used
    const small = await api.put({ name: 'c', options: { max_chunk_size: 1000 } }, bytes(2500));
    expect(small).toMatchObject({ chunks: 3, options: { max_chunk_size: 1000 } });
  });

  it('a stream source of another size than announced fails, and no object appears', async () => {
    const { api } = await bucketPair();
    const data = bytes(256 * 1024);
    await expect(
      api.put({ name: 'long' }, piecesOf(data, 4096), { size: 128 * 1024 }),
    ).rejects.toThrow(/held more than the announced 131072 bytes/);
    await expect(
      api.put({ name: 'short' }, piecesOf(data.subarray(0, 1000), 100), { size: 200_000 }),
    ).rejects.toThrow(/held fewer than the announced 200000 bytes/);
    // the same chunk count, the last chunk short: the server's own check
    const mismatch = await api
      .put({ name: 'last' }, piecesOf(data.subarray(0, 1000), 100), { size: 1001 })
      .catch((e: unknown) => e);
    expect(mismatch).toBeInstanceOf(ObjectStoreApiError);
    expect(mismatch).toMatchObject({ code: 'size_mismatch' });
    expect(await api.list()).toEqual([]);
  });

  it('objects put through JetStream are listed, described, fetched and deleted by request', async () => {
    const { api, js } = await bucketPair();
    const a = bytes(200_000, 3);
    await js.putBlob({ name: 'a' }, a);
    await js.putBlob({ name: 'b' }, bytes(5));
    await js.putBlob({ name: 'gone' }, bytes(5));
    await js.delete('gone');
    await js.link('to-a', (await js.info('a'))!);
    expect((await api.list()).map((o) => o.name).sort()).toEqual(['a', 'b', 'to-a']);
    expect(await api.info('a')).toEqual({ ...(await js.info('a')), revision: 0 });
    // a link is followed to its target; a deleted object is not there
    expect(await api.info('to-a')).toMatchObject({ name: 'a', size: a.length });
    expect(same(await api.getBlob('to-a'), a)).toBe(true);
    expect(await api.info('gone')).toBeNull();
    expect(await api.get('gone')).toBeNull();
    expect(await api.delete('a')).toEqual({ success: true, purged: 0 });
    expect(await js.info('a')).toMatchObject({ deleted: true, size: 0 });
    expect(await js.get('a')).toBeNull();
    const again = await api.delete('a').catch((e: unknown) => e);
    expect(again).toBeInstanceOf(ObjectStoreApiError);
    expect(again).toMatchObject({ code: 'object_not_found' });
  });

  it("the server's errors become our error classes", async () => {
    const missing = await new Objm(clients.nc, { serverApi: true }).open('NOPE', false);
    const notFound = await missing.info('x').catch((e: unknown) => e);
    expect(notFound).toBeInstanceOf(StreamNotFoundError);
    expect(notFound).toMatchObject({ code: 10059, status: 404 });
    await expect(missing.put({ name: 'x' }, 'y')).rejects.toBeInstanceOf(StreamNotFoundError);
    const { api, js } = await bucketPair();
    await js.linkStore('whole', js);
    const bucketLink = await api.get('whole').catch((e: unknown) => e);
    expect(bucketLink).toBeInstanceOf(ObjectStoreApiError);
    expect(bucketLink).toMatchObject({ code: 'bad_request' });
    expect(bucketLink).toBeInstanceOf(JetStreamError);
    // names the client refuses never reach the server
    await expect(api.info('')).rejects.toBeInstanceOf(InvalidNameError);
    await expect(api.put({ name: 'p' }, 'x', { previousRevision: 0 })).rejects.toThrow(
      /no revision check/,
    );
  });

  it('serverApi on an Objm made from a JetStreamClient needs the connection', async () => {
    expect(() => new Objm(clients.js, { serverApi: true })).toThrow(
      /serverApi needs the connection/,
    );
    const bucket = uniqueStream('SA');
    await new Objm(clients.js).create(bucket);
    const api = await new Objm(clients.js, { serverApi: true, connection: clients.nc }).open(
      bucket,
    );
    expect(await api.put({ name: 'x' }, 'hello')).toMatchObject({ size: 5, revision: 0 });
  });
});

describe.each(streamServers.filter((s) => !ourServers.includes(s)))(
  'objectstore with serverApi against $name',
  (kind) => {
    const { clients } = useJetStreamClients(kind);
    it('fails clearly: nats-server has no $OBJ API', async () => {
      const bucket = uniqueStream('SA');
      await new Objm(clients.js).create(bucket);
      const api = await new Objm(clients.nc, { serverApi: true }).open(bucket);
      await expect(api.info('x')).rejects.toThrow(/no \$OBJ object store API answers on \$OBJ\./);
    });
  },
);

/**
 * `chunk_too_large`: a client cannot send a chunk over the max payload (its connection refuses
 * it first, -ERR 'Maximum Payload Violation'), so the API's own check only sees what the server
 * publishes itself. A JetStream API answer is such a message, and may be longer than
 * max_payload: a stream RESP on `$OBJ.big.chunks.*` (the bucket has the official layout, so the
 * subjects do not overlap) stores one, sent to `$OBJ.big.chunks.n1` before that upload exists.
 * Once the upload is announced, a push consumer delivers the stored answer with an ack reply
 * subject, where the API's refusal is answered. The deliver subject only has to reach the API's
 * `$OBJ.>` subscription (it may not be RESP's own: a cycle): the API reads the subject a
 * delivery shows, which is the stored one.
 */
describe.each(ourServers)('chunk_too_large against $name', () => {
  it('a chunk over the max payload is refused and its upload dropped', async () => {
    const server = await startSlipstreamServer({ jetstream: true, config: 'max_payload: 512' });
    let nc: NatsConnection | undefined;
    try {
      nc = await connect({ servers: server.url });
      const request = async (subject: string, body: unknown) =>
        (await nc!.request(subject, JSON.stringify(body), { timeout: 5000 })).json<
          Record<string, unknown>
        >();
      await new Objm(nc).create('big');
      const chunkSubject = '$OBJ.big.chunks.n1';
      await request('$JS.API.STREAM.CREATE.RESP', {
        name: 'RESP',
        subjects: ['$OBJ.big.chunks.*'],
      });
      nc.publish('$JS.API.STREAM.INFO.OBJ_big', '', { reply: chunkSubject });
      await nc.flush();
      const stored = await request('$JS.API.STREAM.MSG.GET.RESP', { seq: 1 });
      const chunk = Buffer.from((stored.message as { data: string }).data, 'base64');
      expect(chunk.length).toBeGreaterThan(512);
      expect(
        await request('$OBJ.big.info.x', { name: 'x', nonce: 'n1', chunks: 1, size: chunk.length }),
      ).toEqual({ pending: true, bucket: 'big', name: 'x', nonce: 'n1' });

      const answers = nc.subscribe('$JS.ACK.RESP.>', { max: 1 });
      await request('$JS.API.CONSUMER.CREATE.RESP', {
        stream_name: 'RESP',
        config: { deliver_subject: `${chunkSubject}.delivered`, ack_policy: 'explicit' },
      });
      for await (const answer of answers) {
        expect(answer.json()).toEqual({
          code: 'chunk_too_large',
          description: `a chunk of ${chunk.length} bytes is over the max payload of 512`,
        });
      }
      // the upload is dropped (had the chunk been taken, it would have completed it)
      expect(await request(chunkSubject, 'x')).toMatchObject({ code: 'unknown_nonce' });
      expect(await request('$OBJ.big', {})).toEqual({ bucket: 'big', objects: [] });
    } finally {
      await nc?.close();
      await server.stop();
    }
  });
});
