/**
 * The `$OBJ` object store API (our server only: nats-server has none), against the official
 * @nats-io/obj client on the same buckets: uploads assembled by the server and read by the
 * official client, objects put by the official client and fetched, listed, described and deleted
 * by request, both layouts, and every bad input answered with a JSON error.
 */
import { createHash, randomBytes } from 'node:crypto';
import { jetstreamManager } from '@nats-io/jetstream';
import { Objm } from '@nats-io/obj';
import { connect, nuid } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type NatsServer, silentLogger, startServer } from '../src/index.js';
import {
  announcement,
  type Json,
  requestJson,
  serverGet,
  serverPut,
  splitChunks,
} from './object-api-client.js';
import type { OfficialConnection } from './official-connection.js';
import { delay } from './raw-client.js';

const UPLOAD_TIMEOUT = 400;
const MAX_PENDING = 4;

let server: NatsServer;
let nc: OfficialConnection;

beforeAll(async () => {
  server = await startServer({
    host: '127.0.0.1',
    port: 0,
    jetstream: { objectUploadTimeout: UPLOAD_TIMEOUT, maxPendingObjectUploads: MAX_PENDING },
    logger: silentLogger,
  });
  nc = await connect({ servers: `127.0.0.1:${server.port}` });
});

afterAll(async () => {
  await nc?.close();
  await server?.close();
});

/** The official digest text: padded base64url of the SHA-256. */
function officialDigest(data: Uint8Array): string {
  const b64 = createHash('sha256').update(data).digest('base64');
  return `SHA-256=${b64.replace(/\+/g, '-').replace(/\//g, '_')}`;
}

async function subjectsOf(stream: string, filter: string): Promise<Record<string, number>> {
  const jsm = await jetstreamManager(nc);
  const info = await jsm.streams.info(stream, { subjects_filter: filter });
  return info.state.subjects ?? {};
}

describe('official layout, with @nats-io/obj', () => {
  const bucket = 'offl';
  beforeAll(async () => {
    await new Objm(nc).create(bucket);
  });

  it.each([0, 1, 128 * 1024, 128 * 1024 + 1, 5 * 1024 * 1024 + 7])(
    'an upload of %i bytes assembled by the server is read by the official client',
    async (size) => {
      const data = randomBytes(size);
      const name = `up-${size}`;
      const info = await serverPut(nc, bucket, name, data);
      expect(info).toMatchObject({
        name,
        bucket,
        size,
        chunks: Math.ceil(size / (128 * 1024)),
        digest: officialDigest(data),
        deleted: false,
      });
      const os = await new Objm(nc).open(bucket);
      const read = await os.getBlob(name);
      expect(Buffer.from(read!).equals(data)).toBe(true);
      const official = await os.info(name);
      expect(official?.digest).toBe(officialDigest(data));
      expect(official?.nuid).toBe(info.nonce);
    },
  );

  it('an object put by the official client is described, fetched, listed and deleted by request', async () => {
    const os = await new Objm(nc).open(bucket);
    const data = randomBytes(3 * 1024 * 1024 + 5);
    await os.putBlob({ name: 'from-official', description: 'made by @nats-io/obj' }, data);
    const info = await requestJson(nc, `$OBJ.${bucket}`, { name: 'from-official' });
    expect(info).toMatchObject({
      name: 'from-official',
      description: 'made by @nats-io/obj',
      size: data.length,
      digest: officialDigest(data),
      deleted: false,
    });
    const got = await serverGet(nc, bucket, 'from-official');
    expect(got.info).toEqual(info);
    expect(Buffer.from(got.data).equals(data)).toBe(true);
    expect(got.endDigest).toBe(officialDigest(data));
    expect(got.flowControlRequests).toBeGreaterThan(0);

    const list = await requestJson(nc, `$OBJ.${bucket}`);
    expect(list.bucket).toBe(bucket);
    const names = (list.objects as Json[]).map((o) => o.name);
    expect(names).toContain('from-official');
    expect(await requestJson(nc, `$OBJ.${bucket}`, {})).toEqual(list);

    expect(
      await requestJson(nc, `$OBJ.${bucket}`, { op: 'delete', name: 'from-official' }),
    ).toEqual({ success: true });
    expect(await os.get('from-official')).toBeNull();
    expect((await os.info('from-official'))?.deleted).toBe(true);
    expect(await subjectsOf(`OBJ_${bucket}`, `$O.${bucket}.C.${info.nonce}`)).toEqual({});
    const after = await requestJson(nc, `$OBJ.${bucket}`);
    expect((after.objects as Json[]).map((o) => o.name)).not.toContain('from-official');
    expect(await requestJson(nc, `$OBJ.${bucket}`, { name: 'from-official' })).toMatchObject({
      code: 'object_not_found',
    });
  });

  it('a body with only a name is info, never a delete', async () => {
    await serverPut(nc, bucket, 'kept', Buffer.from('still here'));
    await requestJson(nc, `$OBJ.${bucket}`, { name: 'kept' });
    expect(await requestJson(nc, `$OBJ.${bucket}`, { name: 'kept', op: 'info' })).toMatchObject({
      name: 'kept',
      deleted: false,
    });
  });

  it('follows a link to its target', async () => {
    const os = await new Objm(nc).open(bucket);
    await serverPut(nc, bucket, 'target', Buffer.from('linked content'));
    const target = await os.info('target');
    await os.link('alias', target!);
    expect(await requestJson(nc, `$OBJ.${bucket}`, { name: 'alias' })).toMatchObject({
      name: 'target',
      size: 14,
    });
    const got = await serverGet(nc, bucket, 'alias');
    expect(Buffer.from(got.data).toString()).toBe('linked content');
  });

  it('replacing an object purges the old chunks; of two uploads at once the last complete wins', async () => {
    const a = randomBytes(300_000);
    const b = randomBytes(200_000);
    const metaA = announcement(bucket, 'raced', a, 100_000);
    const metaB = announcement(bucket, 'raced', b, 100_000);
    const info = `$OBJ.${bucket}.info.raced`;
    nc.publish(info, JSON.stringify(metaA));
    nc.publish(info, JSON.stringify(metaB));
    const chunksA = splitChunks(a, 100_000);
    const chunksB = splitChunks(b, 100_000);
    nc.publish(`$OBJ.${bucket}.chunks.${metaA.nonce}`, chunksA[0]!);
    nc.publish(`$OBJ.${bucket}.chunks.${metaB.nonce}`, chunksB[0]!);
    nc.publish(`$OBJ.${bucket}.chunks.${metaA.nonce}`, chunksA[1]!);
    const doneA = await requestJson(
      nc,
      `$OBJ.${bucket}.chunks.${metaA.nonce}`,
      undefined,
      chunksA[2],
    );
    const doneB = await requestJson(
      nc,
      `$OBJ.${bucket}.chunks.${metaB.nonce}`,
      undefined,
      chunksB[1],
    );
    expect(doneA.digest).toBe(officialDigest(a));
    expect(doneB.digest).toBe(officialDigest(b));
    const read = await (await new Objm(nc).open(bucket)).getBlob('raced');
    expect(Buffer.from(read!).equals(b)).toBe(true);
    expect(Object.keys(await subjectsOf(`OBJ_${bucket}`, `$O.${bucket}.C.>`))).not.toContain(
      `$O.${bucket}.C.${metaA.nonce}`,
    );
    expect(await subjectsOf(`OBJ_${bucket}`, `$O.${bucket}.C.${metaB.nonce}`)).toEqual({
      [`$O.${bucket}.C.${metaB.nonce}`]: 2,
    });
  });

  it('watchers of $OBJ.<bucket>.info.> hear of puts by either API and deletes, only while they listen', async () => {
    const seen: Json[] = [];
    const sub = nc.subscribe(`$OBJ.${bucket}.info.>`, {
      callback: (_, m) => {
        const body = m.json<Json>();
        if (body.digest || body.deleted) seen.push(body);
      },
    });
    await nc.flush();
    const os = await new Objm(nc).open(bucket);
    await os.putBlob({ name: 'watched' }, Buffer.from('by the official client'));
    await serverPut(nc, bucket, 'watched-2', Buffer.from('by the server'));
    await os.delete('watched');
    await delay(100);
    sub.unsubscribe();
    expect(seen.map((o) => [o.name, o.deleted])).toEqual([
      ['watched', false],
      ['watched-2', false],
      ['watched', true],
    ]);
    expect(seen[0]).toMatchObject({ bucket, size: 22 });
  });
});

describe('document layout: stream OBJ_<bucket> on $OBJ.<bucket>.>', () => {
  const bucket = 'docl';
  const stream = `OBJ_${bucket}`;
  beforeAll(async () => {
    const jsm = await jetstreamManager(nc);
    await jsm.streams.add({
      name: stream,
      subjects: [`$OBJ.${bucket}.>`],
      allow_rollup_hdrs: true,
    });
  });

  it('assembles, stores under info.<name> and chunks.<nonce>, and serves every request', async () => {
    const data = randomBytes(400_000);
    const meta = announcement(bucket, 'doc object', data, 128 * 1024);
    const infoSubject = `$OBJ.${bucket}.info.${Buffer.from('doc object').toString('base64url')}`;
    const pending = await requestJson(nc, infoSubject, meta);
    expect(pending).toMatchObject({ pending: true, nonce: meta.nonce });
    const chunks = splitChunks(data, 128 * 1024);
    const chunkSubject = `$OBJ.${bucket}.chunks.${meta.nonce}`;
    expect(await requestJson(nc, chunkSubject, undefined, chunks[0])).toEqual({
      nonce: meta.nonce,
      chunks: 1,
      size: 128 * 1024,
    });
    // Readers never see the pending metadata: only the chunk is stored so far.
    expect(await subjectsOf(stream, '>')).toEqual({ [chunkSubject]: 1 });
    for (const chunk of chunks.slice(1, -1)) nc.publish(chunkSubject, chunk);
    const info = await requestJson(nc, chunkSubject, undefined, chunks.at(-1));
    expect(info).toMatchObject({ name: 'doc object', size: data.length, nonce: meta.nonce });
    expect(info.digest).toBe(officialDigest(data));
    const stored = await subjectsOf(stream, `$OBJ.${bucket}.info.>`);
    expect(Object.values(stored)).toEqual([1]);

    expect(await requestJson(nc, `$OBJ.${bucket}`, { name: 'doc object' })).toEqual(info);
    const got = await serverGet(nc, bucket, 'doc object');
    expect(Buffer.from(got.data).equals(data)).toBe(true);
    const list = await requestJson(nc, `$OBJ.${bucket}`);
    expect(list).toEqual({ bucket, objects: [info] });

    const watched: Json[] = [];
    const sub = nc.subscribe(`$OBJ.${bucket}.info.>`, {
      callback: (_, m) => {
        watched.push(m.json<Json>());
      },
    });
    await nc.flush();
    await serverPut(nc, bucket, 'second', Buffer.from('two'));
    expect(await requestJson(nc, `$OBJ.${bucket}`, { op: 'delete', name: 'doc object' })).toEqual({
      success: true,
    });
    await delay(100);
    sub.unsubscribe();
    expect(watched.filter((o) => o.digest || o.deleted).map((o) => [o.name, o.deleted])).toEqual([
      ['second', false],
      ['doc object', true],
    ]);
    expect(await subjectsOf(stream, chunkSubject)).toEqual({});
  });

  it('a 0-byte object is complete at its announcement', async () => {
    const info = await serverPut(nc, bucket, 'empty', new Uint8Array(0));
    expect(info).toMatchObject({ size: 0, chunks: 0, digest: officialDigest(new Uint8Array(0)) });
    const got = await serverGet(nc, bucket, 'empty');
    expect(got.data.length).toBe(0);
    expect(got.endDigest).toBe(info.digest);
  });
});

describe('refusals: every bad input gets a JSON error', () => {
  const bucket = 'errs';
  beforeAll(async () => {
    await new Objm(nc).create(bucket);
    const jsm = await jetstreamManager(nc);
    await jsm.streams.add({ name: 'OBJ_plain', subjects: ['plain.>'] });
  });

  const announce = (body: unknown, payload?: string) =>
    requestJson(nc, `$OBJ.${bucket}.info.x`, body, payload);
  const ask = (body: unknown, payload?: string, target = bucket) =>
    requestJson(nc, `$OBJ.${target}`, body, payload);
  const meta = (over: Json = {}) => ({
    name: 'obj',
    nonce: nuid.next(),
    chunks: 1,
    size: 3,
    ...over,
  });

  it.each<[string, () => Promise<Json>, string]>([
    ['malformed JSON request', () => ask(undefined, '{"name":'), 'bad_request'],
    ['a request that is not an object', () => ask([1, 2]), 'bad_request'],
    ['an unknown op', () => ask({ op: 'explode', name: 'x' }), 'unknown_op'],
    ['a get without a name', () => ask({ deliver_subject: 'here' }), 'bad_request'],
    ['a get to a wildcard', () => ask({ name: 'x', deliver_subject: 'a.*' }), 'bad_request'],
    ['a missing bucket', () => ask({}, undefined, 'nope'), 'bucket_not_found'],
    ['a stream that is not an object store', () => ask({}, undefined, 'plain'), 'not_object_store'],
    ['a missing object', () => ask({ name: 'ghost' }), 'object_not_found'],
    [
      'a delete of a missing object',
      () => ask({ op: 'delete', name: 'ghost' }),
      'object_not_found',
    ],
    ['malformed JSON metadata', () => announce(undefined, 'not json'), 'bad_request'],
    ['a name with ..', () => announce(meta({ name: 'a/../b' })), 'invalid_name'],
    ['a name with NUL', () => announce(meta({ name: 'a\u0000b' })), 'invalid_name'],
    ['a name with a control byte', () => announce(meta({ name: 'a\u0007b' })), 'invalid_name'],
    ['a name over 1,024 bytes', () => announce(meta({ name: 'é'.repeat(513) })), 'invalid_name'],
    ['an empty name', () => announce(meta({ name: '' })), 'invalid_name'],
    ['a nonce that is not a token', () => announce(meta({ nonce: 'a.b' })), 'bad_request'],
    ['a negative size', () => announce(meta({ size: -1 })), 'bad_request'],
    ['chunks that cannot hold the size', () => announce(meta({ chunks: 0 })), 'count_mismatch'],
    ['another bucket in the body', () => announce(meta({ bucket: 'other' })), 'bad_request'],
    [
      'metadata for a missing bucket',
      () => requestJson(nc, '$OBJ.nope.info.x', meta()),
      'bucket_not_found',
    ],
    [
      'chunks for an unknown nonce',
      () => requestJson(nc, `$OBJ.${bucket}.chunks.${nuid.next()}`, undefined, 'abc'),
      'unknown_nonce',
    ],
  ])('%s', async (_, send, code) => {
    const answer = await send();
    expect(answer).toMatchObject({ code });
    expect(typeof answer.description).toBe('string');
  });

  it('a nonce reused by a second upload', async () => {
    const first = meta();
    expect(await announce(first)).toMatchObject({ pending: true });
    expect(await announce({ ...first, name: 'other' })).toMatchObject({ code: 'nonce_in_use' });
    const done = await requestJson(nc, `$OBJ.${bucket}.chunks.${first.nonce}`, undefined, 'abc');
    expect(done).toMatchObject({ name: 'obj', size: 3 });
    // Its chunks are stored: the nonce stays taken, and more chunks are more than announced.
    expect(await announce({ ...first, name: 'again' })).toMatchObject({ code: 'nonce_in_use' });
    expect(
      await requestJson(nc, `$OBJ.${bucket}.chunks.${first.nonce}`, undefined, 'def'),
    ).toMatchObject({ code: 'count_mismatch' });
  });

  it('a mismatched chunk count: the size reached before the announced count', async () => {
    const m = meta({ chunks: 3, size: 6 });
    await announce(m);
    const subject = `$OBJ.${bucket}.chunks.${m.nonce}`;
    nc.publish(subject, 'abc');
    expect(await requestJson(nc, subject, undefined, 'def')).toMatchObject({
      code: 'count_mismatch',
    });
    expect(await subjectsOf(`OBJ_${bucket}`, `$O.${bucket}.C.${m.nonce}`)).toEqual({});
    expect(await requestJson(nc, subject, undefined, 'ghi')).toMatchObject({
      code: 'unknown_nonce',
    });
  });

  it('a wrong size: the count reached with other bytes than announced, or the size passed', async () => {
    const short = meta({ chunks: 2, size: 10 });
    await announce(short);
    const subject = `$OBJ.${bucket}.chunks.${short.nonce}`;
    nc.publish(subject, 'abc');
    expect(await requestJson(nc, subject, undefined, 'def')).toMatchObject({
      code: 'size_mismatch',
    });
    const long = meta({ chunks: 2, size: 4 });
    await announce(long);
    expect(
      await requestJson(nc, `$OBJ.${bucket}.chunks.${long.nonce}`, undefined, 'abcde'),
    ).toMatchObject({ code: 'size_mismatch' });
    expect(await subjectsOf(`OBJ_${bucket}`, `$O.${bucket}.C.>`)).not.toHaveProperty(
      `$O.${bucket}.C.${short.nonce}`,
    );
    expect(await requestJson(nc, `$OBJ.${bucket}`, { name: 'obj-none' })).toMatchObject({
      code: 'object_not_found',
    });
  });

  it('a stalled upload is forgotten after the timeout and its chunks purged', async () => {
    const m = meta({ name: 'stalled', chunks: 2, size: 6 });
    await announce(m);
    const subject = `$OBJ.${bucket}.chunks.${m.nonce}`;
    expect(await requestJson(nc, subject, undefined, 'abc')).toMatchObject({ chunks: 1 });
    const stored = `$O.${bucket}.C.${m.nonce}`;
    expect(await subjectsOf(`OBJ_${bucket}`, stored)).toEqual({ [stored]: 1 });
    await delay(UPLOAD_TIMEOUT * 2.5);
    expect(await subjectsOf(`OBJ_${bucket}`, stored)).toEqual({});
    expect(await requestJson(nc, subject, undefined, 'def')).toMatchObject({
      code: 'unknown_nonce',
    });
    expect(await ask({ name: 'stalled' })).toMatchObject({ code: 'object_not_found' });
  });

  it('refuses uploads past the per-account maximum of pending ones', async () => {
    const held = Array.from({ length: MAX_PENDING }, () => meta({ chunks: 2, size: 6 }));
    for (const m of held) expect(await announce(m)).toMatchObject({ pending: true });
    expect(await announce(meta({ chunks: 2, size: 6 }))).toMatchObject({
      code: 'too_many_pending',
    });
    // Those finish or time out, and the room is back.
    await delay(UPLOAD_TIMEOUT * 2.5);
    expect(await announce(meta({ chunks: 2, size: 6 }))).toMatchObject({ pending: true });
  });
});

describe('messages on $OBJ subjects that are not the API’s', () => {
  it('a consumer delivering another subject’s message to a deliver subject under $OBJ gets no answer', async () => {
    // A push delivery shows the stored message's own subject (here resp.1), not the deliver
    // subject the API's $OBJ.> subscription heard it on; read as a request it was answered as one
    // to bucket '1' ("bucket_not_found") on the delivery's ack subject.
    const jsm = await jetstreamManager(nc);
    await jsm.streams.add({ name: 'FOREIGN', subjects: ['resp.*'] });
    const answers = nc.subscribe('$JS.ACK.FOREIGN.>');
    nc.publish('resp.1', '{}');
    const deliverSubject = '$OBJ.deliveries.x';
    const seen = nc.subscribe(deliverSubject, { max: 1 });
    await jsm.consumers.add('FOREIGN', {
      deliver_subject: deliverSubject,
      ack_policy: 'explicit',
      durable_name: 'd',
    });
    for await (const delivery of seen) {
      expect(delivery.subject).toBe('resp.1');
      expect(delivery.reply).toMatch(/^\$JS\.ACK\.FOREIGN\.d\./);
    }
    await delay(300);
    // what the API answers goes to the delivery's reply, its ack subject
    expect(answers.getReceived()).toBe(0);
    answers.unsubscribe();
  });
});
