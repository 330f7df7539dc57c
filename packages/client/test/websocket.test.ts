import { type RunningNatsServer, startNatsServer } from '@slipstream/test-servers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, createInbox, headers, websocketTransport } from '../src/node.js';
import { slipstreamServerBin, waitFor } from './servers.js';

describe.each([
  { name: 'nats-server 2.9.10', bin: undefined },
  { name: 'the slipstream-server command', bin: slipstreamServerBin },
])('client over WebSocket (ws in Node) against $name', ({ bin }) => {
  let server: RunningNatsServer;
  beforeAll(async () => {
    server = await startNatsServer({ websocket: true, bin });
  });
  afterAll(() => server?.stop());

  it('publishes, subscribes and requests over ws://', async () => {
    const nc = await connect({
      servers: `ws://127.0.0.1:${server.wsPort}`,
      transport: websocketTransport(),
    });
    expect(nc.getServer()).toBe(`127.0.0.1:${server.wsPort}`);
    const subject = createInbox();
    nc.subscribe(subject, {
      callback: (_e, m) => void m.respond(m.string().toUpperCase(), { headers: m.headers }),
    });
    const h = headers();
    h.set('k', 'v');
    const reply = await nc.request(subject, 'hi', { timeout: 5000, headers: h });
    expect(reply.string()).toBe('HI');
    expect(reply.headers?.get('k')).toBe('v');
    await nc.close();
  });

  it('talks to a TCP client on the same server', async () => {
    const ws = await connect({
      servers: `ws://127.0.0.1:${server.wsPort}`,
      transport: websocketTransport(),
    });
    const tcp = await connect({ servers: server.url });
    const subject = createInbox();
    const got: string[] = [];
    tcp.subscribe(subject, { callback: (_e, m) => void got.push(m.string()) });
    await tcp.flush();
    for (let i = 0; i < 100; i++) ws.publish(subject, `m${i}`);
    await ws.flush();
    await waitFor(() => got.length === 100, '100 messages');
    expect(got[99]).toBe('m99');
    await ws.close();
    await tcp.close();
  });

  it('reconnects over WebSocket after a restart', async () => {
    const nc = await connect({
      servers: `ws://127.0.0.1:${server.wsPort}`,
      transport: websocketTransport(),
      reconnectTimeWait: 50,
    });
    const statuses: string[] = [];
    void (async () => {
      for await (const s of nc.status()) statuses.push(s.type);
    })();
    const subject = createInbox();
    let n = 0;
    nc.subscribe(subject, { callback: () => void n++ });
    await nc.flush();
    server = await server.restart();
    await waitFor(() => statuses.includes('reconnect'), 'reconnect');
    nc.publish(subject);
    await nc.flush();
    expect(n).toBe(1);
    await nc.close();
  });
});
