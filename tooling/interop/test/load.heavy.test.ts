import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Connection, officialClients } from './support/clients.js';
import { bothServers, type TestServer } from './support/servers.js';

const burst = 100_000;
const connectionCount = 1000;

describe.each(officialClients)('$name under load', (client) => {
  describe.each(bothServers)('against $name', (kind) => {
    let server: TestServer;
    beforeAll(async () => {
      server = await kind.start();
    });
    afterAll(async () => {
      await server?.stop();
    });

    it(`delivers a ${burst.toLocaleString('en')}-message burst with nothing lost, in order`, async () => {
      const sub = await client.connect({ servers: server.url, reconnect: false });
      const pub = await client.connect({ servers: server.url, reconnect: false });
      try {
        let received = 0;
        let outOfOrder = 0;
        const all = new Promise<void>((resolve) => {
          sub.subscribe('burst', {
            max: burst,
            callback: (_e, m) => {
              if (Number(m.string()) !== received) outOfOrder++;
              if (++received === burst) resolve();
            },
          });
        });
        await sub.flush();
        for (let i = 0; i < burst; i++) pub.publish('burst', String(i));
        await pub.flush();
        await all;
        expect(received).toBe(burst);
        expect(outOfOrder).toBe(0);
      } finally {
        await Promise.all([sub.close(), pub.close()]);
      }
    }, 120_000);

    it(`serves ${connectionCount.toLocaleString('en')} concurrent connections`, async () => {
      const connections: Connection[] = [];
      try {
        // Opened in bounded batches: the point is having them open together, not a connect storm.
        for (let i = 0; i < connectionCount; i += 100) {
          const batch = Array.from({ length: Math.min(100, connectionCount - i) }, () =>
            client.connect({ servers: server.url, reconnect: false }),
          );
          connections.push(...(await Promise.all(batch)));
        }
        const replies = connections.map((nc, i) => {
          nc.subscribe(`conn.${i}`, { max: 1, callback: (_e, m) => m.respond(`pong ${i}`) });
          return nc.flush();
        });
        await Promise.all(replies);
        const asker = connections[0]!;
        const answers = await Promise.all(
          connections.map((_, i) => asker.request(`conn.${i}`, 'ping', { timeout: 30_000 })),
        );
        expect(answers.map((m) => m.string())).toEqual(connections.map((_, i) => `pong ${i}`));
        expect(connections.every((nc) => !nc.isClosed())).toBe(true);
      } finally {
        await Promise.all(connections.map((nc) => nc.close()));
      }
    }, 180_000);
  });
});
