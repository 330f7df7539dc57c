import { type RunningNatsServer, startNatsServer } from '@slipstream/test-servers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { websocketTransport } from '../src/websocket-node.js';
import { bytes, readUntil } from './helpers.js';

describe('websocket transport (ws in Node)', () => {
  let server: RunningNatsServer;
  beforeAll(async () => {
    server = await startNatsServer({ websocket: true });
  });
  afterAll(() => server?.stop());

  it('talks NATS over ws://', async () => {
    const conn = await websocketTransport().connect(new URL(`ws://127.0.0.1:${server.wsPort}`));
    expect(conn.encrypted).toBe(false);
    const pong = readUntil(conn, 'PONG\r\n');
    conn.send(bytes('CONNECT {"verbose":false}\r\nPING\r\n'));
    expect(await pong).toMatch(/^INFO .*PONG\r\n$/s);
    await conn.close();
    expect(await conn.closed).toBeUndefined();
  });

  it('keeps the URL path for reverse proxies and uses the socket factory', async () => {
    const urls: string[] = [];
    const { default: WebSocket } = await import('ws');
    const transport = websocketTransport({
      socketFactory: (url) => {
        urls.push(url);
        // nats-server serves any path; a reverse proxy would route on it.
        return new WebSocket(url) as never;
      },
    });
    const conn = await transport.connect(new URL(`ws://127.0.0.1:${server.wsPort}/nats/ws`));
    expect(urls).toEqual([`ws://127.0.0.1:${server.wsPort}/nats/ws`]);
    await conn.close();
  });

  it('refuses a nats:// URL with a typed error', async () => {
    const error = await websocketTransport()
      .connect(new URL(server.url))
      .catch((e) => e);
    expect(error.code).toBe('UNSUPPORTED_URL');
  });
});
