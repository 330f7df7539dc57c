import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type AccountOptions, silentLogger, startServer } from '../src/index.js';
import { RawClient } from './raw-client.js';
import { bothServers, closedAfterEach, type RunningTarget } from './targets.js';

interface ApiAnswer {
  error?: { code: number; err_code: number; description: string };
  [field: string]: unknown;
}

const user = (name: string) => [{ user: name, pass: 'pw' }];

describe.each(bothServers)('JetStream per account against $name', (target) => {
  const { start, connect } = closedAfterEach(target);

  async function login(server: RunningTarget, name: string) {
    const client = await connect(server);
    await client.send(
      `CONNECT {"verbose":false,"pedantic":false,"headers":true,"no_responders":true,"user":"${name}","pass":"pw"}\r\nSUB _INBOX.> 1\r\n`,
    );
    await client.sync();
    return client;
  }

  let nextInbox = 1;
  /** Sends one API request and returns its JSON answer (or the 503 no-responders status). */
  async function api(
    client: RawClient,
    subject: string,
    body: object | string = {},
  ): Promise<ApiAnswer> {
    const inbox = `_INBOX.${nextInbox++}`;
    const json = typeof body === 'string' ? body : JSON.stringify(body);
    const before = client.text.length;
    await client.send(`PUB ${subject} ${inbox} ${Buffer.byteLength(json)}\r\n${json}\r\n`);
    // nats-server 2.9.10 writes a PubAck's MSG line with two spaces before the size.
    const pattern = new RegExp(`H?MSG ${inbox.replace('.', '\\.')} 1 +(?:(\\d+) )?(\\d+)\\r\\n`);
    await client.waitUntil((text) => pattern.test(text.slice(before)));
    const rest = client.text.slice(before);
    const match = pattern.exec(rest)!;
    const start = match.index + match[0].length;
    const answer = rest.slice(start, start + Number(match[2]));
    if (match[1] !== undefined)
      return { status: answer.slice(0, Number(match[1])).split('\r\n')[0] };
    return JSON.parse(answer) as ApiAnswer;
  }

  /** A JetStream publish: its PubAck (or error) as JSON. */
  const publish = api;

  function serve(accounts: Record<string, AccountOptions>) {
    return start({ accounts, jetstream: true });
  }

  it("keeps each account's streams to itself", async () => {
    const server = await serve({
      A: { users: user('a'), jetstream: true },
      B: { users: user('b'), jetstream: true },
    });
    const a = await login(server, 'a');
    const b = await login(server, 'b');
    const config = { name: 'ORDERS', subjects: ['orders.>'], storage: 'memory' };
    expect((await api(a, '$JS.API.STREAM.CREATE.ORDERS', config)).error).toBeUndefined();
    expect((await api(b, '$JS.API.STREAM.INFO.ORDERS')).error?.err_code).toBe(10059);
    expect((await api(b, '$JS.API.STREAM.NAMES')).streams).toBeNull();
    expect((await api(b, '$JS.API.STREAM.DELETE.ORDERS')).error?.err_code).toBe(10059);
    // The same name and subjects are free in B, and each stream stores its own account's messages.
    expect((await api(b, '$JS.API.STREAM.CREATE.ORDERS', config)).error).toBeUndefined();
    expect((await publish(a, 'orders.1', 'x')).stream).toBe('ORDERS');
    const stateOf = async (client: RawClient) =>
      ((await api(client, '$JS.API.STREAM.INFO.ORDERS')).state as { messages: number }).messages;
    expect([await stateOf(a), await stateOf(b)]).toEqual([1, 0]);
  });

  it('serves JetStream only to the accounts that enable it', async () => {
    const server = await serve({
      A: { users: user('a'), jetstream: true },
      B: { users: user('b') },
    });
    const b = await login(server, 'b');
    const notEnabled = {
      code: 503,
      err_code: 10039,
      description: 'JetStream not enabled for account',
    };
    expect(await api(b, '$JS.API.INFO')).toEqual({
      type: 'io.nats.jetstream.api.v1.account_info_response',
      error: notEnabled,
    });
    expect(await api(b, '$JS.API.STREAM.NAMES')).toEqual({
      type: 'io.nats.jetstream.api.v1.stream_names_response',
      error: notEnabled,
      total: 0,
      offset: 0,
      limit: 0,
      streams: null,
    });
  });

  it("enforces the account's stream, consumer and memory limits", async () => {
    const server = await serve({
      A: {
        users: user('a'),
        jetstream: { maxMemory: 4096, maxFile: 8192, maxStreams: 2, maxConsumers: 1 },
      },
    });
    const a = await login(server, 'a');
    const info = await api(a, '$JS.API.INFO');
    expect(info.limits).toMatchObject({
      max_memory: 4096,
      max_storage: 8192,
      max_streams: 2,
      max_consumers: 1,
    });
    const stream = (name: string, extra: object = {}) =>
      api(a, `$JS.API.STREAM.CREATE.${name}`, {
        name,
        subjects: [`${name.toLowerCase()}.>`],
        storage: 'memory',
        ...extra,
      });
    expect((await stream('BIG', { max_bytes: 8192 })).error?.err_code).toBe(10028);
    expect((await stream('TOOMANY', { max_consumers: 5 })).error?.err_code).toBe(10026);
    expect((await stream('S1')).error).toBeUndefined();
    const consumer = (name: string) =>
      api(a, `$JS.API.CONSUMER.CREATE.S1.${name}`, {
        stream_name: 'S1',
        config: { durable_name: name, ack_policy: 'explicit' },
      });
    expect((await consumer('C1')).error).toBeUndefined();
    expect((await consumer('C2')).error?.err_code).toBe(10026);
    expect((await stream('S2')).error).toBeUndefined();
    expect((await stream('S3')).error?.err_code).toBe(10027);
    // Messages go in until one would overspend the account's memory (the third, 4.5 KB of
    // 4 KiB), then are refused.
    const payload = 'x'.repeat(1500);
    const acks: (number | undefined)[] = [];
    for (let i = 0; i < 4; i++) acks.push((await publish(a, 's1.m', payload)).error?.err_code);
    expect(acks).toEqual([undefined, undefined, 10002, 10002]);
  });
});

describe('JetStream per account on disk', () => {
  it('keeps each account under <storeDir>/jetstream/<account> and restores it there', async () => {
    const storeDir = await mkdtemp(join(tmpdir(), 'accounts-js-'));
    const options = {
      host: '127.0.0.1',
      port: 0,
      logger: silentLogger,
      jetstream: { storeDir },
      accounts: {
        A: { users: [{ user: 'a', pass: 'pw' }], jetstream: true },
        B: { users: [{ user: 'b', pass: 'pw' }], jetstream: true },
      },
    };
    const names = async (port: number, user: string) => {
      const client = await RawClient.connectAndGreet(port);
      await client.send(
        `CONNECT {"verbose":false,"user":"${user}","pass":"pw"}\r\nSUB in 1\r\nPUB $JS.API.STREAM.NAMES in 0\r\n\r\n`,
      );
      await client.waitFor(/"streams":(null|\[[^\]]*\])/);
      client.close();
      return /"streams":(null|\[[^\]]*\])/.exec(client.text)![1];
    };
    try {
      let server = await startServer(options);
      const client = await RawClient.connectAndGreet(server.port);
      const config = JSON.stringify({ name: 'ORDERS', subjects: ['orders.>'], storage: 'file' });
      await client.send(
        `CONNECT {"verbose":false,"user":"a","pass":"pw"}\r\nSUB in 1\r\nPUB $JS.API.STREAM.CREATE.ORDERS in ${config.length}\r\n${config}\r\n`,
      );
      await client.waitFor('did_create');
      client.close();
      expect(existsSync(join(storeDir, 'jetstream', 'A', 'streams', 'ORDERS'))).toBe(true);
      expect(existsSync(join(storeDir, 'jetstream', 'B'))).toBe(false);
      await server.close();
      server = await startServer(options);
      expect([await names(server.port, 'a'), await names(server.port, 'b')]).toEqual([
        '["ORDERS"]',
        'null',
      ]);
      await server.close();
    } finally {
      await rm(storeDir, { recursive: true, force: true });
    }
  });
});
