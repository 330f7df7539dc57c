import { afterEach, describe, expect, it, vi } from 'vitest';
import { collectBuffersWith, silentLogger, startServer } from '../src/index.js';
import { RawClient } from './raw-client.js';

const MiB = 1024 * 1024;

/** Sends `bytes` of PUBs (nobody subscribed) and waits until the server has read them all. */
async function publish(client: RawClient, bytes: number): Promise<void> {
  const batch = 'PUB read.buffers 16\r\n0123456789abcdef\r\n'.repeat(10_000);
  for (let sent = 0; sent < bytes; sent += batch.length) await client.send(batch);
  await client.sync(20_000);
}

describe('the buffer collector', () => {
  afterEach(() => collectBuffersWith(undefined));

  it('is called once per 4 MiB that clients send, and no more once cleared', async () => {
    const server = await startServer({ host: '127.0.0.1', port: 0, logger: silentLogger });
    try {
      let calls = 0;
      collectBuffersWith(() => {
        calls++;
      });
      const client = await RawClient.connectAndGreet(server.port);
      await client.send('CONNECT {"verbose":false,"pedantic":false}\r\n');
      await publish(client, 18 * MiB);
      // 18 MiB and a little more (the CONNECT, the PINGs): four full 4 MiB steps.
      expect(calls).toBe(4);

      collectBuffersWith(undefined);
      await publish(client, 8 * MiB);
      expect(calls).toBe(4);
      client.close();
    } finally {
      await server.close();
    }
  });

  it('counts what clients are sent as well as what they send', async () => {
    const server = await startServer({ host: '127.0.0.1', port: 0, logger: silentLogger });
    try {
      let calls = 0;
      collectBuffersWith(() => {
        calls++;
      });
      const subscriber = await RawClient.connectAndGreet(server.port);
      await subscriber.send('CONNECT {"verbose":false,"pedantic":false}\r\nSUB read.buffers 1\r\n');
      await subscriber.sync();
      const publisher = await RawClient.connectAndGreet(server.port);
      await publisher.send('CONNECT {"verbose":false,"pedantic":false}\r\n');
      // 8 MiB in makes two calls; the deliveries out (each MSG line longer than its PUB) two more.
      await publish(publisher, 8 * MiB);
      await vi.waitFor(() => expect(calls).toBe(4), { timeout: 10_000 });
      subscriber.close();
      publisher.close();
    } finally {
      await server.close();
    }
  });
});
