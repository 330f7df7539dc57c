import { afterEach, describe, expect, it, vi } from 'vitest';
import { type Logger, type NatsServer, startServer } from '../src/index.js';
import { ViolationLog } from '../src/violation-log.js';
import { RawClient } from './raw-client.js';

// nats-server writes an [ERR] line for each client that breaks the protocol or fails to
// authenticate (`127.0.0.1:port - cid:N - maximum control line exceeded`); operators grep those
// lines to find abusive clients. Ours writes them too, at most 20 a second.

function capturingLogger(): Logger & { errors: string[] } {
  const errors: string[] = [];
  return {
    errors,
    error: (line) => errors.push(line),
    warn() {},
    info() {},
    debug() {},
    trace() {},
  };
}

describe('logging of misbehaving clients', () => {
  let server: NatsServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  async function misbehave(send: string): Promise<RawClient> {
    const client = await RawClient.connectAndGreet(server!.port);
    await client.send(send);
    await client.closed;
    return client;
  }

  it('logs a protocol violation at error level with the connection label', async () => {
    const logger = capturingLogger();
    server = await startServer({ host: '127.0.0.1', port: 0, maxControlLine: 64, logger });
    const client = await misbehave(`PUB ${'a'.repeat(100)} 1\r\n`);
    expect(client.text).toContain("-ERR 'maximum control line exceeded'");
    const cid = client.info().client_id;
    expect(logger.errors).toHaveLength(1);
    expect(logger.errors[0]).toMatch(
      new RegExp(`^127\\.0\\.0\\.1:\\d+ - cid:${cid} - .*maximum control line exceeded`),
    );
  });

  it('logs bad CONNECTs and failed authentication', async () => {
    const logger = capturingLogger();
    server = await startServer({
      host: '127.0.0.1',
      port: 0,
      authorization: { user: 'u', pass: 'p' },
      logger,
    });
    await misbehave('CONNECT {"user":"u","pass":"wrong"}\r\n');
    await misbehave('CONNECT {"verbose":\r\n');
    await misbehave('CONNECT {"user":"u","pass":"p","protocol":7}\r\n');
    expect(logger.errors).toEqual([
      expect.stringMatching(/ - cid:\d+ - Authorization Violation/),
      expect.stringMatching(/ - cid:\d+ - CONNECT is not a JSON object/),
      expect.stringMatching(/ - cid:\d+ - invalid client protocol$/),
    ]);
  });

  it('writes at most 20 lines a second under a flood, then one line counting the rest', async () => {
    const logger = capturingLogger();
    server = await startServer({ host: '127.0.0.1', port: 0, logger });
    // Far more than 20 a second, however slowly this machine opens them.
    const floods = 200;
    await Promise.all(Array.from({ length: floods }, () => misbehave('BOGUS\r\n')));
    await vi.waitFor(() => expect(logger.errors.at(-1)).toMatch(/more client errors not logged/), {
      timeout: 5_000,
    });
    const reports = logger.errors.filter((line) => line.includes('Client parser error'));
    const counted = logger.errors
      .map((line) => /^(\d+) more client errors/.exec(line)?.[1])
      .filter((count) => count !== undefined)
      .reduce((sum, count) => sum + Number(count), 0);
    expect(reports.length).toBeLessThan(floods);
    expect(reports.length + counted).toBe(floods);
  });
});

describe('ViolationLog', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('starts writing again in the next second, after its summary line', () => {
    vi.useFakeTimers();
    const logger = capturingLogger();
    const log = new ViolationLog(logger);
    for (let i = 0; i < 25; i++) log.report('cid:1', `bad ${i}`);
    expect(logger.errors).toHaveLength(20);
    vi.advanceTimersByTime(1_000);
    expect(logger.errors.at(-1)).toBe('5 more client errors not logged (at most 20 a second)');
    log.report('cid:2', 'bad again');
    expect(logger.errors.at(-1)).toBe('cid:2 - bad again');
  });

  it('writes a pending summary when flushed', () => {
    const logger = capturingLogger();
    const log = new ViolationLog(logger);
    for (let i = 0; i < 21; i++) log.report('cid:1', 'bad');
    log.flush();
    expect(logger.errors.at(-1)).toBe('1 more client error not logged (at most 20 a second)');
  });
});
