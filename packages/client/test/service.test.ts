import { describe, expect, it } from 'vitest';
import {
  addService,
  InvalidArgumentError,
  InvalidOperationError,
  NoRespondersError,
  RequestStrategy,
  ServiceError,
  ServiceResponseType,
  serviceClient,
} from '../src/node.js';
import { connectedSuite, serverKinds } from './servers.js';

describe.each(serverKinds)('services (micro protocol) against $name', (kind) => {
  const suite = connectedSuite(kind);

  const discover = async (subject: string) => {
    const replies = await suite.nc.requestMany(subject, '', {
      strategy: RequestStrategy.Timer,
      maxWait: 300,
    });
    const out: Record<string, unknown>[] = [];
    for await (const m of replies) out.push(m.json());
    return out;
  };

  it('serves endpoints and groups, answers errors with the service error headers', async () => {
    const service = await addService(suite.nc, {
      name: 'calc',
      version: '1.2.3',
      description: 'adds numbers',
    });
    service.addEndpoint('add', (_err, msg) => {
      const [a, b] = msg.json<number[]>();
      msg.respond(JSON.stringify(a! + b!));
    });
    service.addGroup('calc.v2').addEndpoint('div', {
      metadata: { unit: 'none' },
      handler: (_err, msg) => {
        const [a, b] = msg.json<number[]>();
        if (b === 0) msg.respondError(400, 'division by zero');
        else msg.respond(JSON.stringify(a! / b!));
      },
    });
    service.addEndpoint('boom', () => {
      throw new Error('kaput');
    });
    await suite.nc.flush();

    expect((await suite.nc.request('add', '[2,3]', { timeout: 5000 })).json()).toBe(5);
    expect((await suite.nc.request('calc.v2.div', '[6,3]', { timeout: 5000 })).json()).toBe(2);
    const failed = await suite.nc.request('calc.v2.div', '[1,0]', { timeout: 5000 });
    const error = ServiceError.toServiceError(failed);
    expect(error?.code).toBe(400);
    expect(error?.message).toBe('division by zero');
    expect(failed.headers?.get('Nats-Service-Error-Code')).toBe('400');
    const boom = await suite.nc.request('boom', '', { timeout: 5000 });
    expect(ServiceError.toServiceError(boom)?.code).toBe(500);

    const [ping] = await discover('$SRV.PING.calc');
    expect(ping).toEqual({
      type: ServiceResponseType.PING,
      name: 'calc',
      id: service.ping().id,
      version: '1.2.3',
      metadata: {},
    });

    const [info] = await discover(`$SRV.INFO.calc.${service.ping().id}`);
    expect(info).toMatchObject({
      type: 'io.nats.micro.v1.info_response',
      description: 'adds numbers',
      endpoints: [
        { name: 'add', subject: 'add', queue_group: 'q' },
        { name: 'div', subject: 'calc.v2.div', queue_group: 'q', metadata: { unit: 'none' } },
        { name: 'boom', subject: 'boom', queue_group: 'q' },
      ],
    });

    const [stats] = (await discover('$SRV.STATS.calc')) as Array<{
      type: string;
      started: string;
      endpoints: Array<Record<string, unknown>>;
    }>;
    expect(stats!.type).toBe('io.nats.micro.v1.stats_response');
    expect(Number.isNaN(Date.parse(stats!.started))).toBe(false);
    expect(
      stats!.endpoints.map((e) => [e.name, e.num_requests, e.num_errors, e.last_error]),
    ).toEqual([
      ['add', 1, 0, ''],
      ['div', 2, 1, '400:division by zero'],
      ['boom', 1, 1, '500:kaput'],
    ]);
    // Nanoseconds, as the micro protocol has them: some for every endpoint that handled a
    // request (well under 5 s), and the average per request.
    for (const e of stats!.endpoints as Array<Record<string, number>>) {
      expect(e.processing_time).toBeGreaterThan(0);
      expect(e.processing_time).toBeLessThan(5e9);
      expect(e.average_processing_time).toBe(Math.round(e.processing_time! / e.num_requests!));
    }

    service.reset();
    expect(
      (await service.stats()).endpoints.every((e) => e.num_requests === 0 && e.num_errors === 0),
    ).toBe(true);

    expect(await service.stop()).toBeNull();
    expect(service.isStopped).toBe(true);
    expect(() => service.addEndpoint('late', () => {})).toThrow(InvalidOperationError);
    await expect(suite.nc.request('add', '[1,1]', { timeout: 5000 })).rejects.toBeInstanceOf(
      NoRespondersError,
    );
  });

  it('spreads requests over instances in the queue group; every instance answers discovery', async () => {
    const a = await addService(suite.nc, { name: 'echo', version: '0.1.0' });
    const b = await addService(suite.nc, { name: 'echo', version: '0.1.0' });
    const counts = new Map<string, number>();
    for (const [svc, tag] of [
      [a, 'a'],
      [b, 'b'],
    ] as const) {
      svc.addEndpoint('echo', (_e, m) => {
        counts.set(tag, (counts.get(tag) ?? 0) + 1);
        m.respond(m.data);
      });
    }
    await suite.nc.flush();
    for (let i = 0; i < 20; i++) await suite.nc.request('echo', 'x', { timeout: 5000 });
    expect((counts.get('a') ?? 0) + (counts.get('b') ?? 0)).toBe(20);
    const pings = await discover('$SRV.PING.echo');
    expect(pings.map((p) => p.id).sort()).toEqual([a.ping().id, b.ping().id].sort());
    const client = serviceClient(suite.nc, { maxWait: 2000, jitter: 200 });
    const infos: string[] = [];
    for await (const info of await client.info('echo')) infos.push(info.id);
    expect(infos.sort()).toEqual([a.ping().id, b.ping().id].sort());
    const stats: number[] = [];
    for await (const s of await client.stats('echo', a.ping().id))
      stats.push(s.endpoints[0]!.num_requests);
    expect(stats).toEqual([counts.get('a') ?? 0]);
    await a.stop();
    await b.stop();
  });

  it('serves an endpoint without a handler as an iterator', async () => {
    const service = await addService(suite.nc, { name: 'iter', version: '1.0.0' });
    const requests = service.addEndpoint('upper');
    const serving = (async () => {
      for await (const m of requests) m.respond(m.string().toUpperCase());
    })();
    await suite.nc.flush();
    expect((await suite.nc.request('upper', 'abc', { timeout: 5000 })).string()).toBe('ABC');
    await service.stop();
    await serving;
  });

  it('rejects bad names and versions', async () => {
    await expect(
      addService(suite.nc, { name: 'bad name', version: '1.0.0' }),
    ).rejects.toBeInstanceOf(InvalidArgumentError);
    await expect(addService(suite.nc, { name: 'ok', version: 'one' })).rejects.toBeInstanceOf(
      InvalidArgumentError,
    );
  });
});
