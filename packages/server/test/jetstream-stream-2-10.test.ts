/**
 * The stream features of nats-server 2.10 on our server, over raw API requests (the official
 * client only sends them to a server advertising 2.10): metadata, compression, consumer_limits,
 * first_seq, the stream's subject_transform, sources' and mirrors' subject_transforms, and the
 * `ts` of stream infos. Only nats-server 2.9.10 runs here, so the expected behaviour is
 * nats-server's source at v2.10.0 / v2.11.0, cited by file:line in server/ at that tag.
 */
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { apiLevelOf } from '../src/api-level.js';
import {
  withRequiredApiLevel,
  withServerApiLevel,
} from '../src/jetstream/stream/stream-api-level.js';
import { sameStreamConfig } from '../src/jetstream/stream/stream-config.js';
import { messagesFile, streamDir } from '../src/jetstream/stream/stream-files.js';
import { NATS_COMPATIBLE_VERSION } from '../src/version.js';
import {
  type Answer,
  configOf,
  errorOf,
  stateOf,
  until,
  useStreamServer,
} from './jetstream-stream-harness.js';

const js = useStreamServer();
const { create, created, update, info, message, restart } = js;

describe('metadata', () => {
  it('is echoed in the config and limited to 128 KiB of keys and values', async () => {
    const answer = await created({ name: 'M', metadata: { owner: 'team-a', tier: 'gold' } });
    // From 2.11 on, the server adds its API level keys (v2.11.0 jetstream_versioning.go): the
    // level of the version it advertises.
    const level = String(apiLevelOf(NATS_COMPATIBLE_VERSION));
    const echoed = { owner: 'team-a', tier: 'gold', '_nats.req.level': '0', '_nats.level': level };
    expect(configOf(answer).metadata).toMatchObject(echoed);
    expect(configOf(await info('M')).metadata).toMatchObject(echoed);
    // LIST shows the stored config: the required level, not the server's keys (v2.11.0
    // jetstream_api.go:1963-1966, no setDynamicStreamMetadata there).
    const listed = (await js.probe.request('$JS.API.STREAM.LIST', {})).streams as Answer[];
    expect(configOf(listed[0]!).metadata).toEqual({
      owner: 'team-a',
      tier: 'gold',
      '_nats.req.level': '0',
    });
    // v2.10.0 stream.go:1155-1161, JSMaxMetadataLen = 128 * 1024 (jetstream_api.go)
    const big = await create({ name: 'BIG', metadata: { k: 'x'.repeat(128 * 1024) } });
    expect(errorOf(big)).toEqual({
      code: 500,
      err_code: 10052,
      description: 'stream metadata exceeds maximum size of 131072 bytes',
    });
  });

  it('carries the API level nats-server 2.11 writes, only when 2.11 is advertised', () => {
    // v2.11.0 jetstream_versioning.go:29-60: `_nats.req.level` is stored (1 with message TTLs),
    // `_nats.ver` and `_nats.level` are added to responses only.
    const config = { name: 'L', allow_msg_ttl: true, metadata: { _nats: 'x', '_nats.ver': 'old' } };
    const stored = withRequiredApiLevel(config, '2.11.0');
    expect(stored.metadata).toEqual({ _nats: 'x', '_nats.req.level': '1' });
    expect(withServerApiLevel(stored, '2.11.0').metadata).toEqual({
      _nats: 'x',
      '_nats.req.level': '1',
      '_nats.ver': '2.11.0',
      '_nats.level': '1',
    });
    expect(withRequiredApiLevel({ name: 'L' }, '2.11.0').metadata).toEqual({
      '_nats.req.level': '0',
    });
    // A stream stored before 2.11 was advertised is the same as its re-creation after.
    expect(sameStreamConfig(stored, { ...config, metadata: { _nats: 'x' } })).toBe(true);
    expect(sameStreamConfig(stored, { ...config, metadata: {} })).toBe(false);
    expect(withRequiredApiLevel(config, '2.10.0')).toBe(config);
    expect(withServerApiLevel(config, '2.10.0')).toBe(config);
  });
});

describe('compression, consumer_limits and ts', () => {
  it('echoes compression ("none" by default) and consumer_limits ({} by default)', async () => {
    // v2.10.0 stream.go:60 `json:"compression"` and :92 `json:"consumer_limits"`, no omitempty.
    const plain = configOf(await created({ name: 'P' }));
    expect(plain.compression).toBe('none');
    expect(plain.consumer_limits).toEqual({});
    const set = configOf(
      await created({
        name: 'S',
        storage: 'memory',
        compression: 's2',
        consumer_limits: { inactive_threshold: 5_000_000_000, max_ack_pending: 20 },
      }),
    );
    // A memory stream accepts s2 and keeps it in its config (memstore ignores it).
    expect(set.compression).toBe('s2');
    expect(set.consumer_limits).toEqual({
      inactive_threshold: 5_000_000_000,
      max_ack_pending: 20,
    });
    // filestore.go:123 StoreCompression.UnmarshalJSON: anything else fails the JSON decode.
    const bad = await create({ name: 'B', compression: 'lz4' });
    expect(errorOf(bad)?.err_code).toBe(10025);
  });

  it('refuses new consumer_limits that a consumer exceeds, naming it', async () => {
    await created({ name: 'CL', subjects: ['cl'] });
    const consumer = await js.probe.request('$JS.API.CONSUMER.DURABLE.CREATE.CL.D', {
      stream_name: 'CL',
      config: { durable_name: 'D', ack_policy: 'explicit', max_ack_pending: 500 },
    });
    expect(errorOf(consumer)).toBeUndefined();
    // v2.10.0 stream.go:1703-1725, answered as JSStreamUpdateErrF (jetstream_api.go:1460)
    expect(
      errorOf(
        await update({ name: 'CL', subjects: ['cl'], consumer_limits: { max_ack_pending: 100 } }),
      ),
    ).toEqual({
      code: 500,
      err_code: 10069,
      description: 'change to limits violates consumers: D',
    });
    const raised = await update({
      name: 'CL',
      subjects: ['cl'],
      consumer_limits: { max_ack_pending: 1000 },
    });
    expect(configOf(raised).consumer_limits).toEqual({ max_ack_pending: 1000 });
  });

  it('answers create, update, info and list with the time the info was gathered', async () => {
    // v2.10.0 jetstream_api.go:1379 (create), 1473 (update), 1699 (list), 1854 (info)
    const before = Date.now();
    const answers = [
      await created({ name: 'T' }),
      await update({ name: 'T', max_msgs: 10 }),
      await info('T'),
      ((await js.probe.request('$JS.API.STREAM.LIST')).streams as Answer[])[0]!,
    ];
    for (const answer of answers) {
      const ts = Date.parse(answer.ts as string);
      expect(ts).toBeGreaterThanOrEqual(before - 1);
      expect(ts).toBeLessThanOrEqual(Date.now() + 1);
    }
  });

  it('compresses file payloads at rest, marking each row, and reads old rows too', async () => {
    await created({ name: 'Z', subjects: ['z'] });
    const text = 'compressible '.repeat(100);
    expect(errorOf(await js.probe.request('z', text))).toBeUndefined();
    await update({ name: 'Z', subjects: ['z'], compression: 's2' });
    expect(errorOf(await js.probe.request('z', text))).toBeUndefined();
    expect(errorOf(await js.probe.request('z', 'short'))).toBeUndefined();
    await restart();
    expect(await message('Z', 1)).toEqual({ subject: 'z', data: text });
    expect(await message('Z', 2)).toEqual({ subject: 'z', data: text });
    expect(await message('Z', 3)).toEqual({ subject: 'z', data: 'short' });
    const db = new Database(messagesFile(streamDir(js.storeDir, '$G', 'Z')), { readonly: true });
    const rows = db
      .prepare('SELECT seq, encoding, length(payload) AS stored FROM messages ORDER BY seq')
      .all();
    db.close();
    // Stored before compression was on: as given. After: deflated, far smaller. Too short to gain:
    // as given.
    expect(rows).toEqual([
      { seq: 1, encoding: 0, stored: text.length },
      { seq: 2, encoding: 1, stored: expect.any(Number) },
      { seq: 3, encoding: 0, stored: 5 },
    ]);
    expect((rows[1] as { stored: number }).stored).toBeLessThan(text.length / 4);
    // Counted bytes are the message's, not what the disk holds (same as before compression).
    const bytes = stateOf(await info('Z')).bytes as number;
    expect(bytes).toBe(2 * (22 + 1 + text.length + 8) + (22 + 1 + 5 + 8));
  });
});

describe('retention updates', () => {
  it('turn limits into interest, dropping what every consumer acked, but not workqueue', async () => {
    await created({ name: 'RI', subjects: ['ri'] });
    for (const body of ['m1', 'm2', 'm3']) await js.probe.request('ri', body);
    const consumer = await js.probe.request('$JS.API.CONSUMER.DURABLE.CREATE.RI.C', {
      stream_name: 'RI',
      config: { durable_name: 'C', ack_policy: 'all' },
    });
    expect(errorOf(consumer)).toBeUndefined();
    // One message pulled and acked: the consumer's ack floor is 1.
    const pull = JSON.stringify({ batch: 1, no_wait: true });
    await js.probe.client.send(
      `SUB _PULL 900\r\nPUB $JS.API.CONSUMER.MSG.NEXT.RI.C _PULL ${pull.length}\r\n${pull}\r\n`,
    );
    await js.probe.client.waitUntil(() =>
      js.probe.messages().some((m) => m.reply?.startsWith('$JS.ACK.RI.C.')),
    );
    const replies = js.probe.messages().filter((m) => m.reply?.startsWith('$JS.ACK.RI.C.'));
    expect(replies.map((m) => m.data)).toEqual(['m1']);
    await js.probe.publish(replies[0]!.reply!, '+ACK');
    await until(async () => {
      const info = await js.probe.request('$JS.API.CONSUMER.INFO.RI.C');
      return (info.ack_floor as { stream_seq: number }).stream_seq === 1;
    });
    // Limits keep the acked message; 2.10 lets the update switch (stream.go:1571 at v2.10.0)
    // and the consumers' state then drops it (stream.go:1913-1929).
    expect(stateOf(await info('RI')).messages).toBe(3);
    const updated = await update({ name: 'RI', subjects: ['ri'], retention: 'interest' });
    expect(configOf(updated).retention).toBe('interest');
    expect(stateOf(await info('RI'))).toMatchObject({ messages: 2, first_seq: 2 });
    expect(errorOf(await update({ name: 'RI', subjects: ['ri'], retention: 'workqueue' }))).toEqual(
      {
        code: 500,
        err_code: 10052,
        description:
          'stream configuration update can not change retention policy to/from workqueue',
      },
    );
  });
});

describe('first_seq', () => {
  it('starts the stream at that sequence, and is refused on a mirror', async () => {
    const answer = await created({ name: 'F', subjects: ['f'], first_seq: 100 });
    expect(configOf(answer).first_seq).toBe(100);
    // memstore.go:55-58 / filestore.go:497-500: the new store is purged up to first_seq.
    expect(stateOf(answer)).toMatchObject({ messages: 0, first_seq: 100, last_seq: 99 });
    const ack = await js.probe.request('f', 'one');
    expect(ack.seq).toBe(100);
    await restart();
    expect((await js.probe.request('f', 'two')).seq).toBe(101);
    expect(stateOf(await info('F'))).toMatchObject({ messages: 2, first_seq: 100 });
    // v2.10.0 stream.go:1265-1267
    expect(errorOf(await create({ name: 'FM', mirror: { name: 'F' }, first_seq: 5 }))).toEqual({
      code: 400,
      err_code: 10143,
      description: 'stream mirrors can not have first sequence configured',
    });
  });
});

describe('subject_transform', () => {
  it('stores what is published under the mapped subject', async () => {
    const config = {
      name: 'X',
      subjects: ['in.>'],
      subject_transform: { src: 'in.*.>', dest: 'out.{{wildcard(1)}}.$1.>' },
    };
    expect(configOf(await created(config)).subject_transform).toEqual(config.subject_transform);
    await js.probe.request('in.a.b.c', 'one');
    // Not matching the transform's source: stored as published (stream.go:4776-4782 at v2.11.0).
    await js.probe.request('in.z', 'two');
    expect(await message('X', 1)).toEqual({ subject: 'out.a.a.b.c', data: 'one' });
    expect(await message('X', 2)).toEqual({ subject: 'in.z', data: 'two' });
  });

  it("reshapes tokens with nats-server's mapping functions", async () => {
    await created({
      name: 'FN',
      subjects: ['p.>'],
      subject_transform: {
        src: 'p.*.*.*',
        dest: 'q.{{split(1,-)}}.{{SplitFromLeft(2,1)}}.{{sliceFromRight(3,2)}}.{{partition(10,1,2)}}',
      },
    });
    await js.probe.request('p.a-b.xyz.abcde', 'one');
    // subject_transform.go TransformTokenizedSubject (v2.11.0): split drops empty parts,
    // sliceFromRight keeps the short slice first, partition is FNV-1a 32 of the tokens mod 10
    // (FNV-1a of "a-bxyz" is 785161558).
    expect((await message('FN', 1))?.subject).toBe('q.a.b.x.yz.a.bc.de.8');
  });

  it('refuses a bad source or destination with nats-server 2.11 errors', async () => {
    const refusal = async (src: string, dest: string) =>
      errorOf(await create({ name: 'BAD', subjects: ['b.>'], subject_transform: { src, dest } }));
    // v2.11.0 stream.go:1750-1760; the texts of subject_transform.go and sublist.go:1275
    expect(await refusal('b..x', 'c')).toEqual({
      code: 400,
      err_code: 10155,
      description: 'stream transform source: invalid subject b..x',
    });
    expect(await refusal('b.*', 'c.*')).toEqual({
      code: 400,
      err_code: 10156,
      description: 'stream transform: invalid subject',
    });
    const mappingRefusals: Array<[string, string, string]> = [
      ['b.*', 'c.{{nope(1)}}', 'unknown function in {{nope(1)}}'],
      ['b.*', 'c.$2', 'wildcard index out of range in $2: [2]'],
      ['b.x', 'c.$1', 'wildcard index out of range in $1'],
      [
        'b.*',
        'c.{{partition(3)}}',
        'not enough arguments passed to the function in {{partition(3)}}',
      ],
      [
        'b.*',
        'c.{{splitFromLeft(1,a)}}',
        'function argument is invalid or in the wrong format in {{splitFromLeft(1,a)}}',
      ],
      ['b.>', 'c.>.d', 'invalid transform in d'],
    ];
    for (const [src, dest, problem] of mappingRefusals) {
      expect((await refusal(src, dest))?.description).toBe(
        `stream transform: invalid mapping destination: ${problem}`,
      );
    }
  });
});

describe("sources' and mirrors' subject_transforms", () => {
  it('copies from a source only what one of its transforms matches, mapped by it', async () => {
    await created({ name: 'O', subjects: ['o.>'] });
    for (const subject of ['o.a.1', 'o.b.2', 'o.c.3', 'o.a.4'])
      await js.probe.request(subject, subject);
    await created({
      name: 'S',
      subjects: ['s.>'],
      sources: [
        {
          name: 'O',
          subject_transforms: [
            { src: 'o.a.*', dest: 's.A.$1' },
            { src: 'o.b.*', dest: '' },
          ],
        },
      ],
    });
    await until(async () => stateOf(await info('S')).messages === 3);
    const copied = [await message('S', 1), await message('S', 2), await message('S', 3)];
    expect(copied.map((m) => `${m?.subject} ${m?.data}`)).toEqual([
      's.A.1 o.a.1',
      'o.b.2 o.b.2',
      's.A.4 o.a.4',
    ]);
    // Each copy names its origin message (stream-origin.ts; nats-server's Nats-Stream-Source).
    expect(copied[2]?.headers).toContain('Nats-Stream-Source: O 4');
  });

  it('mirrors only what its transforms match, mapped, at the origin sequences', async () => {
    await created({ name: 'O', subjects: ['o.>'] });
    for (const subject of ['o.a.1', 'o.b.2', 'o.a.3']) await js.probe.request(subject, subject);
    await created({
      name: 'MI',
      mirror: { name: 'O', subject_transforms: [{ src: 'o.a.*', dest: 'm.$1' }] },
    });
    await until(async () => stateOf(await info('MI')).messages === 2);
    expect(await message('MI', 1)).toEqual({ subject: 'm.1', data: 'o.a.1' });
    expect(await message('MI', 3)).toEqual({ subject: 'm.3', data: 'o.a.3' });
  });

  it('are repeated with filter_subject in the stream info entries, omitted when unset', async () => {
    await created({ name: 'O', subjects: ['o.>'] });
    const transforms = [
      { src: 'o.a.*', dest: 's.A.$1' },
      { src: 'o.b.*', dest: '' },
    ];
    await created({
      name: 'S',
      subjects: ['s.>'],
      sources: [
        { name: 'O', subject_transforms: transforms },
        { name: 'O', filter_subject: 'o.c' },
      ],
    });
    await created({ name: 'MF', mirror: { name: 'O', filter_subject: 'o.a.*' } });
    await created({ name: 'MT', mirror: { name: 'O', subject_transforms: transforms } });
    await created({ name: 'MA', mirror: { name: 'O' } });
    // v2.11.0 stream.go:236-244 (StreamSourceInfo: filter_subject and subject_transforms,
    // both omitempty) filled by sourceInfo, stream.go:2342-2353, from the origin's config.
    const sources = (await info('S')).sources as Answer[];
    const filters = (entry: unknown) => {
      const { filter_subject, subject_transforms } = entry as Answer;
      return { filter_subject, subject_transforms };
    };
    expect(sources.map(filters)).toEqual([
      { filter_subject: undefined, subject_transforms: transforms },
      { filter_subject: 'o.c', subject_transforms: undefined },
    ]);
    expect(filters((await info('MF')).mirror)).toEqual({
      filter_subject: 'o.a.*',
      subject_transforms: undefined,
    });
    expect(filters((await info('MT')).mirror)).toEqual({
      filter_subject: undefined,
      subject_transforms: transforms,
    });
    expect(Object.keys((await info('MA')).mirror as Answer).sort()).toEqual([
      'active',
      'lag',
      'name',
    ]);
  });

  it('refuses transforms with a filter, overlapping ones and a repeated source', async () => {
    await created({ name: 'O', subjects: ['o.>'] });
    const source = (extra: Answer) => create({ name: 'S2', subjects: ['s2'], ...extra });
    // v2.11.0 stream.go:1533-1535
    expect(
      errorOf(
        await source({
          sources: [
            { name: 'O', filter_subject: 'o.a', subject_transforms: [{ src: 'o.b', dest: 'x' }] },
          ],
        }),
      )?.err_code,
    ).toBe(10144);
    // stream.go:1549-1555: one source inside another
    expect(
      errorOf(
        await source({
          sources: [
            {
              name: 'O',
              subject_transforms: [
                { src: 'o.>', dest: '' },
                { src: 'o.a', dest: '' },
              ],
            },
          ],
        }),
      ),
    ).toEqual({ code: 400, err_code: 10147, description: 'source filters can not overlap' });
    // stream.go:1515-1519 with composeIName (815): same stream, same filters
    expect(
      errorOf(await source({ sources: [{ name: 'O' }, { name: 'O', filter_subject: '>' }] })),
    ).toEqual({
      code: 400,
      err_code: 10140,
      description: 'duplicate source configuration detected',
    });
    expect(errorOf(await source({ sources: [{ name: 'O.x' }] }))?.err_code).toBe(10141);
    // stream.go:1437-1458 for a mirror
    const mirror = (extra: Answer) => create({ name: 'M2', mirror: { name: 'O', ...extra } });
    expect(
      errorOf(
        await mirror({ filter_subject: 'o.a', subject_transforms: [{ src: 'o.b', dest: 'x' }] }),
      )?.err_code,
    ).toBe(10150);
    expect(
      errorOf(
        await mirror({
          subject_transforms: [
            { src: 'o.*', dest: '' },
            { src: 'o.a', dest: '' },
          ],
        }),
      ),
    ).toEqual({
      code: 400,
      err_code: 10152,
      description: 'mirror subject filters can not overlap',
    });
    expect(errorOf(await mirror({ subject_transforms: [{ src: 'o.*', dest: 'm.*' }] }))).toEqual({
      code: 400,
      err_code: 10154,
      description: 'mirror transform: invalid subject',
    });
  });
});
