import { ServiceError as OfficialServiceError, Svcm } from '@nats-io/services';
import { connect as officialConnect, headers as officialHeaders } from '@nats-io/transport-node';
import { type RunningNatsServer, startNatsServer } from '@slipstream/test-servers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addService,
  connect,
  createInbox,
  headers,
  type NatsConnection,
  RequestStrategy,
  ServiceError,
  serviceClient,
} from '../src/node.js';
import { waitFor } from './servers.js';

describe('interop with the official @nats-io/transport-node client on nats-server 2.9.10', () => {
  let server: RunningNatsServer;
  beforeAll(async () => {
    server = await startNatsServer();
  });
  afterAll(() => server?.stop());

  it('messages and headers from ours arrive intact at theirs', async () => {
    const ours = await connect({ servers: server.url });
    const theirs = await officialConnect({ servers: server.url });
    const subject = createInbox();
    const got: Array<{ data: string; h: string[] | undefined; reply?: string }> = [];
    theirs.subscribe(subject, {
      callback: (_e, m) =>
        void got.push({
          data: m.string(),
          h: m.headers?.values('X-Multi'),
          reply: m.reply || undefined,
        }),
    });
    await theirs.flush();
    const h = headers();
    h.append('X-Multi', 'one');
    h.append('X-Multi', 'two: with colon');
    ours.publish(subject, 'plain');
    ours.publish(subject, 'with headers ✓', { headers: h, reply: 'reply.to' });
    ours.publish(subject, new Uint8Array(0));
    await ours.flush();
    await waitFor(() => got.length === 3, 'three messages');
    expect(got).toEqual([
      { data: 'plain', h: undefined, reply: undefined },
      { data: 'with headers ✓', h: ['one', 'two: with colon'], reply: 'reply.to' },
      { data: '', h: undefined, reply: undefined },
    ]);
    await ours.close();
    await theirs.close();
  });

  it('messages and headers from theirs arrive intact at ours, and requests cross both ways', async () => {
    const ours = await connect({ servers: server.url });
    const theirs = await officialConnect({ servers: server.url });
    const subject = createInbox();
    const got: Array<{ data: string; h: string | undefined }> = [];
    ours.subscribe(subject, {
      callback: (_e, m) => void got.push({ data: m.string(), h: m.headers?.get('Trace-Id') }),
    });
    await ours.flush();
    const h = officialHeaders();
    h.set('Trace-Id', 'abc-123');
    theirs.publish(subject, 'hello');
    theirs.publish(subject, 'with headers', { headers: h });
    await theirs.flush();
    await waitFor(() => got.length === 2, 'two messages');
    expect(got).toEqual([
      { data: 'hello', h: undefined },
      { data: 'with headers', h: 'abc-123' },
    ]);

    const service = createInbox();
    ours.subscribe(service, { callback: (_e, m) => void m.respond(`ours:${m.string()}`) });
    theirs.subscribe(`${service}.theirs`, {
      callback: (_e, m) => void m.respond(`theirs:${m.string()}`),
    });
    await ours.flush();
    await theirs.flush();
    expect((await theirs.request(service, 'q', { timeout: 5000 })).string()).toBe('ours:q');
    expect((await ours.request(`${service}.theirs`, 'q', { timeout: 5000 })).string()).toBe(
      'theirs:q',
    );
    await ours.close();
    await theirs.close();
  });

  // One service answers each discovery: stop at its answer instead of waiting out a timer.
  const firstReply = { strategy: 'count', maxMessages: 1, maxWait: 10_000 } as never;

  it('the official services client discovers and calls our service, and ours discovers theirs', async () => {
    const ours = await connect({ servers: server.url });
    const theirs = await officialConnect({ servers: server.url });
    const service = await addService(ours, { name: 'interop', version: '1.0.0' });
    service.addEndpoint('fail', {
      subject: 'interop.fail',
      handler: (_e, m) => void m.respondError(409, 'conflict'),
    });
    const official = new Svcm(theirs as never).client(firstReply);
    const ids: string[] = [];
    for await (const p of await official.ping('interop')) ids.push(p.id);
    expect(ids).toEqual([service.ping().id]);
    const infos: string[][] = [];
    for await (const i of await official.info('interop'))
      infos.push(i.endpoints.map((e) => e.subject));
    expect(infos).toEqual([['interop.fail']]);
    const failed = await theirs.request('interop.fail', '', { timeout: 5000 });
    expect(OfficialServiceError.toServiceError(failed as never)?.code).toBe(409);
    const stats: number[] = [];
    for await (const s of await official.stats('interop'))
      stats.push(s.endpoints?.[0]?.num_errors ?? -1);
    expect(stats).toEqual([1]);

    const theirService = await new Svcm(theirs as never).add({
      name: 'official',
      version: '2.0.0',
    });
    theirService.addEndpoint('fail', {
      subject: 'official.fail',
      handler: (_e, m) => void m.respondError(418, 'teapot'),
    });
    await theirs.flush();
    const found: string[] = [];
    for await (const p of await serviceClient(ours, {
      strategy: RequestStrategy.Count,
      maxMessages: 1,
      maxWait: 10_000,
    }).ping('official'))
      found.push(p.version);
    expect(found).toEqual(['2.0.0']);
    const reply = await ours.request('official.fail', '', { timeout: 5000 });
    expect(ServiceError.toServiceError(reply)?.code).toBe(418);
    await theirService.stop();
    await service.stop();
    await ours.close();
    await theirs.close();
  });

  it('the official services library runs on our connection unchanged', async () => {
    const ours = await connect({ servers: server.url });
    // Same API shape as nats.js: their library takes our connection as its own.
    const svcm = new Svcm(ours as never);
    const service = await svcm.add({ name: 'hosted', version: '0.1.0' });
    service.addEndpoint('echo', {
      subject: 'hosted.echo',
      handler: (_e, m) => void m.respond(m.data),
    });
    await ours.flush();
    const other: NatsConnection = await connect({ servers: server.url });
    expect((await other.request('hosted.echo', 'hi', { timeout: 5000 })).string()).toBe('hi');
    const ids: string[] = [];
    for await (const p of await svcm.client(firstReply).ping('hosted')) ids.push(p.id);
    expect(ids).toEqual([service.info().id]);
    await service.stop();
    await other.close();
    await ours.close();
  });
});
