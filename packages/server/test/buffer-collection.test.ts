import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { collectBuffersWith, type NatsServer, silentLogger, startServer } from '../src/index.js';
import { RawClient } from './raw-client.js';

const MiB = 1024 * 1024;

/** A connected client that has sent its CONNECT (and `then`, if given). */
async function client(server: NatsServer, then = ''): Promise<RawClient> {
  const connection = await RawClient.connectAndGreet(server.port);
  await connection.send(`CONNECT {"verbose":false,"pedantic":false}\r\n${then}`);
  await connection.sync();
  return connection;
}

/** Sends `bytes` of PUBs on `read.buffers` and waits until the server has read them all. */
async function publish(connection: RawClient, bytes: number): Promise<void> {
  const batch = 'PUB read.buffers 16\r\n0123456789abcdef\r\n'.repeat(10_000);
  for (let sent = 0; sent < bytes; sent += batch.length) await connection.send(batch);
  await connection.sync(20_000);
}

describe('the buffer collector', () => {
  let server: NatsServer;
  let calls: number;
  beforeEach(async () => {
    server = await startServer({ host: '127.0.0.1', port: 0, logger: silentLogger });
    calls = 0;
    collectBuffersWith(() => {
      calls++;
    });
  });
  afterEach(async () => {
    collectBuffersWith(undefined);
    await server.close();
  });

  it('is called once per 4 MiB that clients send, and no more once cleared', async () => {
    const publisher = await client(server);
    await publish(publisher, 18 * MiB);
    // 18 MiB and a little more (the CONNECT, the PINGs): four full 4 MiB steps.
    expect(calls).toBe(4);

    collectBuffersWith(undefined);
    await publish(publisher, 8 * MiB);
    expect(calls).toBe(4);
    publisher.close();
  });

  it('counts what clients are sent as well as what they send', async () => {
    const subscriber = await client(server, 'SUB read.buffers 1\r\n');
    const publisher = await client(server);
    // 8 MiB in makes two calls; the deliveries out (each MSG line longer than its PUB) two more.
    await publish(publisher, 8 * MiB);
    await vi.waitFor(() => expect(calls).toBe(4), { timeout: 10_000 });
    subscriber.close();
    publisher.close();
  });
});
