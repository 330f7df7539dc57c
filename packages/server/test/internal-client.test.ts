import { afterEach, describe, expect, it } from 'vitest';
import { type NatsServer, silentLogger, startServer } from '../src/index.js';
import { internalClientOf } from '../src/server.js';
import { RawClient } from './raw-client.js';

// Clients of the server itself (JetStream's API and streams, later system events) subscribe
// with callbacks on the same router as socket clients, and may publish from inside a delivery.

const text = new TextEncoder();
const decode = (bytes: Uint8Array | undefined) => (bytes ? new TextDecoder().decode(bytes) : '');

describe('internal clients', () => {
  let server: NatsServer;
  const clients: RawClient[] = [];
  afterEach(async () => {
    for (const client of clients.splice(0)) client.close();
    await server?.close();
  });

  async function connect(): Promise<RawClient> {
    const client = await RawClient.connectAndGreet(server.port);
    clients.push(client);
    await client.send('CONNECT {"verbose":false,"headers":true}\r\n');
    return client;
  }

  it('receive what clients publish and answer requests', async () => {
    server = await startServer({ host: '127.0.0.1', port: 0, logger: silentLogger });
    const internal = internalClientOf(server);
    const seen: string[] = [];
    internal.subscribe('svc.>', (message) => {
      seen.push(
        `${message.subject} ${message.reply} ${decode(message.headers)}${decode(message.payload)}`,
      );
      if (message.reply)
        internal.publish(message.reply, text.encode(`re:${decode(message.payload)}`));
    });
    const client = await connect();
    await client.send(
      'SUB inbox.1 1\r\nHPUB svc.echo inbox.1 12 14\r\nNATS/1.0\r\n\r\nhi\r\nPING\r\n',
    );
    await client.waitFor('MSG inbox.1 1 5\r\nre:hi\r\n');
    expect(seen).toEqual(['svc.echo inbox.1 NATS/1.0\r\n\r\nhi']);
  });

  it('may publish during a fan-out without changing what the other receivers get', async () => {
    server = await startServer({ host: '127.0.0.1', port: 0, logger: silentLogger });
    const first = await connect();
    await first.send('SUB fan 1\r\nPING\r\n');
    await first.waitFor('PONG');
    // Subscribed between the two clients, so it is delivered to in the middle of the fan-out.
    const internal = internalClientOf(server);
    const payloadsAfterPublishing: string[] = [];
    internal.subscribe('fan', (message) => {
      internal.publish('elsewhere', text.encode('a different, longer payload'), {
        reply: 'some.reply',
      });
      payloadsAfterPublishing.push(decode(message.payload));
    });
    const last = await connect();
    await last.send('SUB fan 2\r\nSUB elsewhere 3\r\nPING\r\n');
    await last.waitFor('PONG');
    const publisher = await connect();
    await publisher.send('PUB fan 8\r\noriginal\r\nPING\r\n');
    await publisher.waitFor('PONG');
    await first.waitFor('MSG fan 1 8\r\noriginal\r\n');
    await last.waitFor('MSG elsewhere 3 some.reply 27\r\na different, longer payload\r\n');
    expect(last.text).toContain('MSG fan 2 8\r\noriginal\r\n');
    expect(payloadsAfterPublishing).toEqual(['original']);
  });

  it('take their turn in a queue group and stop receiving once unsubscribed', async () => {
    server = await startServer({ host: '127.0.0.1', port: 0, logger: silentLogger });
    const internal = internalClientOf(server);
    let received = 0;
    const sub = internal.subscribe('work', () => received++, 'workers');
    const client = await connect();
    await client.send('SUB work workers 1\r\nPING\r\n');
    await client.waitFor('PONG');
    const publisher = await connect();
    await publisher.send(`${'PUB work 1\r\nx\r\n'.repeat(200)}PING\r\n`);
    await publisher.waitFor('PONG');
    await client.send('PING\r\n');
    await client.waitUntil((all) => (all.match(/PONG/g) ?? []).length === 2);
    const toClient = (client.text.match(/MSG work 1 1/g) ?? []).length;
    expect(received + toClient).toBe(200);
    expect(received).toBeGreaterThan(0);
    expect(toClient).toBeGreaterThan(0);
    internal.unsubscribe(sub);
    await publisher.send('PUB work 1\r\ny\r\nPING\r\n');
    await client.waitFor('MSG work 1 1\r\ny\r\n');
    expect(received + toClient).toBe(200);
  });
});
