import { describe, expect, it } from 'vitest';
import {
  type Logger,
  NATS_COMPATIBLE_VERSION,
  type NatsServer,
  ServerError,
  silentLogger,
  startServer,
  VERSION,
} from '../src/index.js';
import { RawClient } from './raw-client.js';

const QUIET = 'CONNECT {"verbose":false,"protocol":1}\r\n';

function recordingLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const at = (level: string) => (message: string) => void lines.push(`[${level}] ${message}`);
  return {
    lines,
    error: at('ERR'),
    warn: at('WRN'),
    info: at('INF'),
    debug: at('DBG'),
    trace: at('TRC'),
  };
}

async function withServer<T>(
  options: Parameters<typeof startServer>[0],
  body: (server: NatsServer) => Promise<T>,
): Promise<T> {
  const server = await startServer({
    host: '127.0.0.1',
    port: 0,
    logger: silentLogger,
    ...options,
  });
  try {
    return await body(server);
  } finally {
    await server.close();
  }
}

describe('startServer', () => {
  it('listens on a free port when asked for port 0 and describes itself', async () => {
    await withServer({ serverName: 'embedded', httpPort: 0 }, async (server) => {
      expect(server.port).toBeGreaterThan(0);
      expect(server.url).toBe(`nats://127.0.0.1:${server.port}`);
      expect(server.httpUrl).toBe(`http://127.0.0.1:${server.httpPort}`);
      expect(server.info).toMatchObject({
        server_name: 'embedded',
        version: NATS_COMPATIBLE_VERSION,
        proto: 1,
        port: server.port,
        headers: true,
        max_payload: 1048576,
      });
      const varz = (await (await fetch(`${server.httpUrl}/varz`)).json()) as Record<
        string,
        unknown
      >;
      expect(varz.slipstream_version).toBe(VERSION);
      expect(varz.server_name).toBe('embedded');
    });
  });

  it('listens on a wildcard address and gives a dialable url', async () => {
    const server = await startServer({ host: '0.0.0.0', port: 0, logger: silentLogger });
    expect(server.url).toBe(`nats://127.0.0.1:${server.port}`);
    const client = await RawClient.connectAndGreet(server.port);
    client.close();
    await server.close();
  });

  it('fails with LISTEN_FAILED when the port is taken', async () => {
    await withServer({}, async (first) => {
      const attempt = startServer({ host: '127.0.0.1', port: first.port, logger: silentLogger });
      await expect(attempt).rejects.toBeInstanceOf(ServerError);
      await expect(attempt).rejects.toMatchObject({ code: 'LISTEN_FAILED' });
    });
  });

  it('rejects options it cannot run with', async () => {
    await expect(startServer({ maxPayload: -1, logger: silentLogger })).rejects.toMatchObject({
      code: 'INVALID_OPTION',
    });
    await expect(startServer({ authorization: {}, logger: silentLogger })).rejects.toMatchObject({
      code: 'INVALID_OPTION',
    });
    // nats-server refuses this combination too.
    await expect(
      startServer({ maxPayload: 2048, maxPending: 1024, logger: silentLogger }),
    ).rejects.toMatchObject({ code: 'INVALID_OPTION' });
  });

  it('treats 0 as the default for limits and durations, as nats-server does', async () => {
    await withServer({ maxPayload: 0, maxConnections: 0, pingInterval: 0 }, async (server) => {
      expect(server.info.max_payload).toBe(1048576);
      const client = await RawClient.connectAndGreet(server.port);
      await client.send(QUIET);
      await client.sync();
      expect(client.isClosed).toBe(false);
      client.close();
    });
  });

  it('close() ends every connection and resolves `closed`', async () => {
    const server = await startServer({ host: '127.0.0.1', port: 0, logger: silentLogger });
    const clients = await Promise.all([1, 2, 3].map(() => RawClient.connectAndGreet(server.port)));
    for (const client of clients) await client.send(QUIET);
    await server.close();
    await server.closed;
    for (const client of clients) {
      await client.waitClosed();
      expect(client.afterInfo()).not.toContain('-ERR');
    }
    await expect(RawClient.connect(server.port)).rejects.toThrow();
    await server.close();
  });

  // nats-server refuses a lame_duck_duration under 30 s, so this timing is checked on ours alone.
  it('lame duck mode tells clients, closes them spread over the duration after the grace period, then shuts down', async () => {
    const grace = 200;
    const duration = 1_000;
    const server = await startServer({
      host: '127.0.0.1',
      port: 0,
      logger: silentLogger,
      lameDuckDuration: duration,
      lameDuckGracePeriod: grace,
    });
    const clients = await Promise.all(
      [1, 2, 3, 4].map(() => RawClient.connectAndGreet(server.port)),
    );
    for (const client of clients) await client.send(QUIET);
    for (const client of clients) await client.sync();
    const start = performance.now();
    const closedAt = clients.map((client) => client.closed.then(() => performance.now() - start));
    const done = server.lameDuck();
    expect(server.lameDuck()).toBe(done);
    for (const client of clients) await client.waitFor('"ldm":true');
    const times = (await Promise.all(closedAt)).sort((a, b) => a - b);
    await done;
    await server.closed;
    // The 800 ms after the grace period, shared by 4 clients: one close, then a wait of 100 to
    // 200 ms (half to all of 800 / 4) before the next, so the last comes 300 to 600 ms after
    // the first (50 ms allowed for seeing the closes late on a busy machine).
    expect(times[0]).toBeGreaterThanOrEqual(grace - 5);
    expect(times[3]! - times[0]!).toBeGreaterThanOrEqual(300 - 50);
    expect(times[3]).toBeLessThan(duration + 500);
  });

  it('accepts token authorization', async () => {
    await withServer({ authorization: { token: 't0k' } }, async (server) => {
      const good = await RawClient.connectAndGreet(server.port);
      await good.send('CONNECT {"verbose":false,"auth_token":"t0k"}\r\n');
      await good.sync();
      const bad = await RawClient.connectAndGreet(server.port);
      await bad.send('CONNECT {"verbose":false,"auth_token":"nope"}\r\n');
      expect(await bad.waitClosed()).toContain("-ERR 'Authorization Violation'");
      good.close();
    });
  });

  it('logs startup at info, connections at debug and frames at trace', async () => {
    const logger = recordingLogger();
    await withServer({ logger, debug: true, trace: true, jetstream: true }, async (server) => {
      const client = await RawClient.connectAndGreet(server.port);
      await client.send('CONNECT {"verbose":false}\r\nSUB t 1\r\nPUB t 1\r\nx\r\n');
      await client.sync();
      client.close();
      await client.closed;
    });
    const text = logger.lines.join('\n');
    expect(text).toContain('[INF] Server is ready');
    expect(text).toContain('[INF] Starting JetStream');
    expect(text).toMatch(/\[DBG\] 127\.0\.0\.1:\d+ - cid:\d+ - Client connection created/);
    expect(text).toMatch(/\[TRC\] .* <<- \[PUB t 1\]/);
    expect(text).toMatch(/\[TRC\] .* ->> \[MSG t 1 1\]/);
  });

  it('logs nothing per message without debug or trace', async () => {
    const logger = recordingLogger();
    await withServer({ logger }, async (server) => {
      const before = logger.lines.length;
      const client = await RawClient.connectAndGreet(server.port);
      await client.send('CONNECT {"verbose":false}\r\nSUB t 1\r\nPUB t 1\r\nx\r\n');
      await client.sync();
      client.close();
      expect(logger.lines.length).toBe(before);
    });
  });
});
