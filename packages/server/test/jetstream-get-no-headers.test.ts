/**
 * `no_hdr` on STREAM.MSG.GET and DIRECT.GET (nats-server 2.12): the stored message without its
 * headers, and for DIRECT.GET without the origin headers either (a plain MSG). Follows
 * TestJetStreamGetNoHeaders (nats-server v2.12.1 server/jetstream_test.go:21304); the batch
 * case follows getDirectRequest (v2.12.1 server/stream.go:5245-5290). nats-server 2.9.10 has no
 * `no_hdr`, so the answers are written out.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ConsumerTarget, ConsumerWire, startOurs } from './jetstream-consumer-wire.js';
import { RawClient } from './raw-client.js';

describe('no_hdr as nats-server 2.12 (TestJetStreamGetNoHeaders)', () => {
  let target: ConsumerTarget;
  let wire: ConsumerWire;

  beforeAll(async () => {
    target = await startOurs();
    wire = await ConsumerWire.connect(target.port);
    await wire.request('$JS.API.STREAM.CREATE.TEST', {
      name: 'TEST',
      subjects: ['foo'],
      allow_direct: true,
    });
    const raw = await RawClient.connectAndGreet(target.port);
    await raw.send('CONNECT {"verbose":false,"headers":true}\r\n');
    const header = 'NATS/1.0\r\ntest: something\r\n\r\n';
    for (const data of ['12345', '67890']) {
      const size = header.length + data.length;
      await raw.send(`HPUB foo ${header.length} ${size}\r\n${header}${data}\r\n`);
    }
    await raw.sync();
    raw.close();
  });
  afterAll(async () => {
    wire?.close();
    await target?.stop();
  });

  /** The replies of a direct get up to its first one (or, for a batch, its EOB). */
  async function directGet(subject: string, body: unknown, count: number) {
    const inbox = wire.inbox();
    wire.pub(subject, body, inbox);
    return wire.received(inbox, count);
  }

  it('MsgGet: hdrs only without no_hdr', async () => {
    const withHeaders = await wire.request('$JS.API.STREAM.MSG.GET.TEST', {
      seq: 1,
      no_hdr: false,
    });
    const message = withHeaders.message as { hdrs?: string; data: string };
    expect(Buffer.from(message.hdrs!, 'base64').toString()).toContain('test: something');
    expect(Buffer.from(message.data, 'base64').toString()).toBe('12345');

    const bare = await wire.request('$JS.API.STREAM.MSG.GET.TEST', { seq: 1, no_hdr: true });
    expect(bare.message).toEqual({
      subject: 'foo',
      seq: 1,
      data: Buffer.from('12345').toString('base64'),
      time: expect.any(String),
    });
  });

  it('DirectGet: no headers at all, not even the origin ones', async () => {
    const [full] = await directGet('$JS.API.DIRECT.GET.TEST', { seq: 1, no_hdr: false }, 1);
    expect(full!.headers).toContain('test: something');
    expect(full!.headers).toContain('Nats-Sequence: 1');
    const [bare] = await directGet('$JS.API.DIRECT.GET.TEST', { seq: 1, no_hdr: true }, 1);
    expect(bare).toMatchObject({ headers: undefined, data: '12345' });
  });

  it('DirectGetLastFor: the last-by-subject form takes a body with no_hdr', async () => {
    const [full] = await directGet('$JS.API.DIRECT.GET.TEST.foo', { no_hdr: false }, 1);
    expect(full!.headers).toContain('Nats-Sequence: 2');
    expect(full!.data).toBe('67890');
    const [bare] = await directGet('$JS.API.DIRECT.GET.TEST.foo', { no_hdr: true }, 1);
    expect(bare).toMatchObject({ headers: undefined, data: '67890' });
    // A body choosing messages is still refused there, a malformed one is called so.
    const [refused] = await directGet('$JS.API.DIRECT.GET.TEST.foo', { seq: 1 }, 1);
    expect(refused!.headers).toBe('NATS/1.0 408 Bad Request\r\n\r\n');
    const [malformed] = await directGet('$JS.API.DIRECT.GET.TEST.foo', '{"no_hdr":', 1);
    expect(malformed!.headers).toBe('NATS/1.0 408 Malformed Request\r\n\r\n');
  });

  it('a no_hdr batch sends bare payloads, then the EOB with the pending count from its start', async () => {
    const replies = await directGet(
      '$JS.API.DIRECT.GET.TEST',
      { seq: 1, batch: 5, no_hdr: true },
      3,
    );
    expect(replies.map((m) => [m.headers, m.data])).toEqual([
      [undefined, '12345'],
      [undefined, '67890'],
      ['NATS/1.0 204 EOB\r\nNats-Num-Pending: 2\r\nNats-Last-Sequence: 2\r\n\r\n', ''],
    ]);
  });
});
