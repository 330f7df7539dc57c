/**
 * Pausing a consumer, nats-server 2.11: `pause_until` in the config and
 * $JS.API.CONSUMER.PAUSE.<stream>.<consumer>, on our server over raw requests. Expected
 * behaviour is nats-server's at v2.11.0, cited by file:line in server/ at that tag.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ZERO_TIME } from '@slipstream/jsapi';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type NatsServer, silentLogger, startServer } from '../src/index.js';
import { type Answer, ConsumerRequests, configOf, errorOf } from './jetstream-consumer-requests.js';
import { ConsumerWire, sleep } from './jetstream-consumer-wire.js';

let storeDir: string;
let server: NatsServer;
let wire: ConsumerWire;
let js: ConsumerRequests;

async function start(): Promise<void> {
  server = await startServer({
    host: '127.0.0.1',
    port: 0,
    jetstream: { storeDir },
    logger: silentLogger,
  });
  wire = await ConsumerWire.connect(server.port);
  js = new ConsumerRequests(wire);
}

async function stop(): Promise<void> {
  wire.close();
  await server.close();
}

beforeEach(async () => {
  storeDir = await mkdtemp(join(tmpdir(), 'slipstream-consumer-pause-'));
  await start();
});

afterEach(async () => {
  await stop();
  await rm(storeDir, { recursive: true, force: true });
});

/** An RFC 3339 time `ms` from now. */
const inMs = (ms: number) => new Date(Date.now() + ms).toISOString();

function pause(stream: string, name: string, body: Answer | string = ''): Promise<Answer> {
  return wire.request(`$JS.API.CONSUMER.PAUSE.${stream}.${name}`, body);
}

/** The JSON of each advisory received on `subject` so far. */
function advisories(subject: string): Answer[] {
  return wire.on(subject).map((m) => JSON.parse(m.data) as Answer);
}

describe('CONSUMER.PAUSE (nats-server 2.11)', () => {
  it('pauses a pull consumer until the deadline, then it delivers again by itself', async () => {
    const events = '$JS.EVENT.ADVISORY.CONSUMER.PAUSE.P.PULL';
    wire.sub(events);
    await js.stream({ name: 'P', subjects: ['p.>'] }, ['p.a', 'p.b']);
    await js.consumer('P', { durable_name: 'PULL', ack_policy: 'explicit' });
    const until = inMs(1_500);
    const paused = await pause('P', 'PULL', { pause_until: until });
    // jetstream_api.go:5058-5061: paused, the deadline (UTC), the time left.
    expect(paused).toMatchObject({
      type: 'io.nats.jetstream.api.v1.consumer_pause_response',
      paused: true,
    });
    expect(Date.parse(paused.pause_until as string)).toBe(Date.parse(until));
    expect(paused.pause_remaining).toBeGreaterThan(1_000_000_000);
    expect(paused.pause_remaining).toBeLessThanOrEqual(1_500_000_000);
    // ConsumerInfo paused / pause_remaining (consumer.go:2962-2966) and the config's deadline.
    const info = await js.info('P', 'PULL');
    expect(info.paused).toBe(true);
    expect(info.pause_remaining).toBeGreaterThan(0);
    expect(configOf(info).pause_until).toBe(paused.pause_until);
    // Nothing is delivered while paused (consumer.go:4471-4475), not even a waiting request's.
    expect(await js.pull('P', 'PULL', 10, { no_wait: false, expires: 500_000_000 })).toEqual([]);
    await sleep(1_200);
    expect(await js.pull('P', 'PULL', 10)).toEqual(['p.a:m1', 'p.b:m2']);
    const after = await js.info('P', 'PULL');
    expect(after.paused).toBeUndefined();
    expect(after.pause_remaining).toBeUndefined();
    // The advisory when paused, and when the deadline passed (consumer.go:1244-1250, 1690).
    await wire.received(events, 2);
    expect(advisories(events)).toMatchObject([
      {
        type: 'io.nats.jetstream.advisory.v1.consumer_pause',
        stream: 'P',
        consumer: 'PULL',
        paused: true,
        pause_until: paused.pause_until,
      },
      { paused: false, pause_until: paused.pause_until },
    ]);
  });

  it('a push consumer created paused delivers once a PAUSE without a deadline resumes it', async () => {
    const events = '$JS.EVENT.ADVISORY.CONSUMER.PAUSE.Q.PUSH';
    wire.sub(events);
    await js.stream({ name: 'Q', subjects: ['q.>'] }, ['q.a']);
    const deliver = wire.inbox();
    const created = await js.consumer('Q', {
      durable_name: 'PUSH',
      deliver_subject: deliver,
      pause_until: inMs(60_000),
    });
    expect(created.paused).toBe(true);
    await js.publish(['q.b'], 2);
    await sleep(300);
    expect(wire.on(deliver)).toEqual([]);
    // An empty body resumes: paused false and Go's zero time (jetstream_api.go:5046-5061).
    expect(await pause('Q', 'PUSH')).toEqual({
      type: 'io.nats.jetstream.api.v1.consumer_pause_response',
      paused: false,
      pause_until: ZERO_TIME,
    });
    const got = await wire.received(deliver, 2);
    expect(got.map((m) => `${m.subject}:${m.data}`)).toEqual(['q.a:m1', 'q.b:m2']);
    expect(configOf(await js.info('Q', 'PUSH')).pause_until).toBeUndefined();
    // Creating paused announces nothing; resuming does, with the zero deadline.
    await wire.received(events, 1);
    expect(advisories(events)).toMatchObject([{ paused: false, pause_until: ZERO_TIME }]);
  });

  it('a deadline already past does not pause; a missing consumer or stream is an error', async () => {
    await js.stream({ name: 'E', subjects: ['e.>'] }, ['e.a']);
    await js.consumer('E', { durable_name: 'C' });
    const past = await pause('E', 'C', { pause_until: '2020-01-01T00:00:00Z' });
    expect(past).toMatchObject({ paused: false, pause_until: '2020-01-01T00:00:00Z' });
    expect(past.pause_remaining).toBeUndefined();
    expect(await js.pull('E', 'C', 10)).toEqual(['e.a:m1']);
    // The error answers carry the response's fields, zero (JSApiConsumerPauseResponse).
    expect(await pause('E', 'NOPE', { pause_until: inMs(1_000) })).toEqual({
      type: 'io.nats.jetstream.api.v1.consumer_pause_response',
      error: { code: 404, err_code: 10014, description: 'consumer not found' },
      paused: false,
      pause_until: ZERO_TIME,
    });
    expect(errorOf(await pause('NOPE', 'C'))).toMatchObject({ err_code: 10059 });
  });

  it('the pause survives a restart, and ends at its deadline after it', async () => {
    await js.stream({ name: 'R', subjects: ['r.>'], storage: 'file' }, ['r.a']);
    await js.consumer('R', { durable_name: 'KEEP', ack_policy: 'explicit' });
    const until = (await pause('R', 'KEEP', { pause_until: inMs(2_500) })).pause_until;
    await stop();
    await start();
    // The deadline is in the stored config; the restored consumer arms its timer again
    // (consumer.go:1453, 5848).
    const info = await js.info('R', 'KEEP');
    expect(info.paused).toBe(true);
    expect(configOf(info).pause_until).toBe(until);
    expect(await js.pull('R', 'KEEP', 10, { no_wait: false, expires: 300_000_000 })).toEqual([]);
    await sleep(Date.parse(until as string) - Date.now() + 100);
    expect(await js.pull('R', 'KEEP', 10)).toEqual(['r.a:m1']);
  });
});
