import { describe, expect, it, vi } from 'vitest';
import { delay, RawClient } from './raw-client.js';
import { bothServers, closedAfterEach, closeReasons, ours } from './targets.js';

const QUIET = 'CONNECT {"verbose":false,"pedantic":false}\r\n';

/**
 * `slow` subscribes to `flood` and stops reading; `publisher` then sends 64 KiB messages to it
 * (at most 800) until the server has closed `slow`. nats-server stalls a publisher feeding a
 * consumer past half its max_pending and may only notice at the write deadline, so the publisher
 * gets generous time.
 */
async function flood(slow: RawClient, publisher: RawClient): Promise<void> {
  await slow.send(`${QUIET}SUB flood 1\r\n`);
  await slow.sync();
  slow.socket.pause();
  const payload = 'x'.repeat(64 * 1024);
  await publisher.send(QUIET);
  for (let i = 0; i < 800 && !slow.isClosed; i++) {
    await publisher.send(`PUB flood ${payload.length}\r\n${payload}\r\n`);
    if (i % 10 === 0) await publisher.sync(25_000);
  }
}

describe.each(bothServers)('limits and keepalive against $name', (target) => {
  const { start, connect, track } = closedAfterEach(target);

  it('advertises max_payload and closes a PUB above it with Maximum Payload Violation', async () => {
    const server = await start({ maxPayload: 1024 });
    const client = await connect(server);
    expect(client.info().max_payload).toBe(1024);
    await client.send(`${QUIET}PUB fits 1024\r\n${'x'.repeat(1024)}\r\n`);
    await client.sync();
    await client.send('PUB big 1025\r\n');
    expect(await client.waitClosed()).toContain("-ERR 'Maximum Payload Violation'\r\n");
  });

  it('applies a configured max_control_line', async () => {
    const server = await start({ maxControlLine: 1024 });
    const ok = await connect(server);
    await ok.send(`${QUIET}SUB ${'s'.repeat(1022)} 1\r\n`);
    await ok.sync();
    expect(ok.afterInfo()).toBe('PONG\r\n');
    const tooLong = await connect(server);
    await tooLong.send(`${QUIET}SUB ${'s'.repeat(1023)} 1\r\n`);
    expect(await tooLong.waitClosed()).toContain("-ERR 'maximum control line exceeded'\r\n");
  });

  it('sends INFO then maximum connections exceeded to the connection over the limit', async () => {
    const server = await start({ maxConnections: 2 });
    const first = await connect(server);
    const second = await connect(server);
    await first.sync();
    await second.sync();
    const third = track(await RawClient.connect(server.port));
    const text = await third.waitClosed();
    expect(text).toMatch(/^INFO \{.*\} \r\n-ERR 'maximum connections exceeded'\r\n$/);
    // The others are untouched.
    await first.send(`${QUIET}`);
    await first.sync();
    expect(first.isClosed).toBe(false);
  });

  it('rejects a SUB over max_subscriptions without closing', async () => {
    const server = await start({ maxSubscriptions: 2 });
    const client = await connect(server);
    await client.send(`${QUIET}SUB a 1\r\nSUB b 2\r\nSUB c 3\r\nPUB b 1\r\nx\r\nPUB c 1\r\ny\r\n`);
    await client.sync();
    expect(client.afterInfo()).toBe(
      "-ERR 'maximum subscriptions exceeded'\r\nMSG b 2 1\r\nx\r\nPONG\r\n",
    );
  });

  it('closes a stale connection after ping_max unanswered PINGs', async () => {
    const server = await start({ pingInterval: 200, pingMax: 2 });
    const client = await connect(server);
    await client.send(QUIET);
    const text = await client.waitClosed(10_000);
    expect(client.afterInfo()).toBe("PING\r\nPING\r\n-ERR 'Stale Connection'\r\n");
    expect(text).not.toContain('PONG');
  });

  it('keeps a connection that answers PINGs', async () => {
    const server = await start({ pingInterval: 100, pingMax: 1 });
    const client = await connect(server);
    await client.send(QUIET);
    client.socket.on('data', () => {
      if (client.text.endsWith('PING\r\n')) void client.send('PONG\r\n');
    });
    // Three PINGs answered: the server would have closed after the second without answers.
    await client.waitFor(/(PING\r\n.*){3}/s, 10_000);
    expect(client.isClosed).toBe(false);
  });

  it('cuts off a slow consumer while serving everyone else', async () => {
    const maxPending = 256 * 1024;
    const server = await start({
      maxPending,
      maxPayload: 64 * 1024,
      writeDeadline: 1_000,
      monitoring: true,
    });
    const slow = await connect(server);
    const healthy = await connect(server);
    const publisher = await connect(server);
    await healthy.send(`${QUIET}SUB other 1\r\n`);
    await healthy.sync();
    await flood(slow, publisher);
    await publisher.send('PUB other 5\r\nstill\r\n');
    await healthy.waitFor('MSG other 1 5\r\nstill\r\n');
    slow.socket.resume();
    const text = await slow.waitClosed(20_000);
    // nats-server sends no -ERR to a slow consumer: it just closes (reference §7).
    expect(text).not.toContain('-ERR');
    expect(publisher.isClosed).toBe(false);
    const varz = (await (await fetch(`${server.httpUrl}/varz`)).json()) as {
      slow_consumers: number;
    };
    expect(varz.slow_consumers).toBeGreaterThanOrEqual(1);
    const reasons = await closeReasons(server);
    expect(reasons.some((reason) => reason.startsWith('Slow Consumer ('))).toBe(true);
  });

  it('delivers every byte in order to a consumer that stops reading for a while, then catches up', async () => {
    const server = await start({ maxPayload: 64 * 1024, writeDeadline: 60_000 });
    const slow = await connect(server);
    const publisher = await connect(server);
    await slow.send(`${QUIET}SUB order 1\r\n`);
    await slow.sync();
    const before = slow.text.length;
    slow.socket.pause();
    // 16 MiB: more than loopback socket buffers hold, so the server's writes back up; each payload
    // is distinct, so bytes overwritten or reordered while queued would show.
    let expected = '';
    await publisher.send(QUIET);
    for (let i = 0; i < 512; i++) {
      const letter = String.fromCharCode(97 + (i % 26));
      const payload = `${String(i).padStart(6, '0')}${letter.repeat(32 * 1024 - 6)}`;
      await publisher.send(`PUB order ${payload.length}\r\n${payload}\r\n`);
      expected += `MSG order 1 ${payload.length}\r\n${payload}\r\n`;
      if (i % 64 === 63) await publisher.sync(25_000);
    }
    slow.socket.resume();
    // The server's keepalive PINGs (the first comes ~2 s after CONNECT) are not part of the stream.
    const received = () => slow.text.slice(before).replaceAll('PING\r\n', '');
    const complete = (text: string) =>
      text.length >= before + expected.length && received().length >= expected.length;
    await slow.waitUntil(complete, 25_000, 'all messages');
    const got = received();
    expect(got.length).toBe(expected.length);
    expect(got === expected).toBe(true);
    expect(slow.isClosed).toBe(false);
  });

  it('cuts off a consumer whose writes stay blocked past the write deadline', async () => {
    const server = await start({
      maxPending: 64 * 1024 * 1024,
      maxPayload: 64 * 1024,
      writeDeadline: 300,
      monitoring: true,
    });
    const slow = await connect(server);
    const publisher = await connect(server);
    // Far below max_pending: only the blocked write can end this connection. Still not reading,
    // the server must give up on its own, within the deadline plus slack.
    await flood(slow, publisher);
    const reasons = () => closeReasons(server);
    for (let i = 0; i < 100 && !(await reasons()).includes('Slow Consumer (Write Deadline)'); i++) {
      await delay(100);
    }
    expect(await reasons()).toContain('Slow Consumer (Write Deadline)');
    slow.socket.resume();
    expect(await slow.waitClosed(20_000)).not.toContain('-ERR');
  });

  it('requires CONNECT credentials when authorization is on', async () => {
    const server = await start({ authorization: { user: 'alice', pass: 's3cret' } });
    const good = await connect(server);
    expect(good.info().auth_required).toBe(true);
    await good.send('CONNECT {"verbose":false,"user":"alice","pass":"s3cret"}\r\n');
    await good.sync();
    expect(good.afterInfo()).toBe('PONG\r\n');

    const wrong = await connect(server);
    await wrong.send('CONNECT {"verbose":false,"user":"alice","pass":"nope"}\r\n');
    expect(await wrong.waitClosed()).toContain("-ERR 'Authorization Violation'\r\n");

    const garbage = await connect(server);
    await garbage.send('XYZZY\r\n');
    expect(await garbage.waitClosed()).toContain("-ERR 'Authorization Violation'\r\n");

    const anonymous = await connect(server);
    await anonymous.send('CONNECT {"verbose":false}\r\n');
    expect(await anonymous.waitClosed()).toContain("-ERR 'Authorization Violation'\r\n");

    const early = await connect(server);
    await early.send('PING\r\n');
    const text = await early.waitClosed();
    expect(text).toContain("-ERR 'Authorization Violation'\r\n");
    expect(text).not.toContain('PONG');
  });

  it('closes with Authentication Timeout when CONNECT does not come in time', async () => {
    const server = await start({ authorization: { user: 'a', pass: 'b' }, authTimeout: 300 });
    const client = await connect(server);
    expect(await client.waitClosed()).toContain("-ERR 'Authentication Timeout'\r\n");
  });

  it('sends INFO with ldm to protocol-1 clients and stops accepting in lame duck mode', async () => {
    const server = await start({ lameDuckDuration: 30_000, lameDuckGracePeriod: 10_000 });
    const modern = await connect(server);
    const legacy = await connect(server);
    await modern.send('CONNECT {"verbose":false,"protocol":1}\r\n');
    await legacy.send('CONNECT {"verbose":false,"protocol":0}\r\n');
    await modern.sync();
    await legacy.sync();
    server.lameDuck();
    await modern.waitFor(/INFO \{.*"ldm":true.*\} \r\n/);
    const ldmInfo = JSON.parse(/INFO (\{.*"ldm":true.*\}) \r\n/.exec(modern.text)![1]!);
    expect(ldmInfo).toMatchObject({ ldm: true, client_id: modern.info().client_id });
    await legacy.sync();
    expect(legacy.afterInfo()).toBe('PONG\r\nPONG\r\n');
    // New connections are refused once the listener is closed.
    let refused = false;
    for (let i = 0; i < 50 && !refused; i++) {
      try {
        (await RawClient.connect(server.port)).close();
      } catch {
        refused = true;
      }
      if (!refused) await delay(50);
    }
    expect(refused).toBe(true);
  });
});

/**
 * Where we do better than nats-server 2.9.10, which stops the whole fan-out until its write
 * deadline cuts a stalled subscriber (issue #14): only ours.
 */
describe('a stalled subscriber among fast ones, against slipstream', () => {
  const { start, connect } = closedAfterEach(ours);

  it('keeps the fast subscribers receiving while the stalled one is pending, then cuts it', async () => {
    // The write deadline stays at its default (10 s on both servers): what ends the stalled
    // subscriber's pending is max_pending.
    const server = await start({
      maxPayload: 64 * 1024,
      maxPending: 8 * 1024 * 1024,
      monitoring: true,
    });
    const slowConsumers = async () => {
      const varz = (await (await fetch(`${server.httpUrl}/varz`)).json()) as {
        slow_consumers: number;
      };
      return varz.slow_consumers;
    };
    const stalled = await connect(server);
    await stalled.send(`${QUIET}SUB fan 1\r\n`);
    await stalled.sync();
    stalled.socket.pause();
    const fast = await Promise.all(Array.from({ length: 20 }, () => connect(server)));
    for (const client of fast) {
      await client.send(`${QUIET}SUB fan 1\r\n`);
      await client.sync();
    }
    const watches = fast.map(watchDeliveries);
    const publisher = await connect(server);
    await publisher.send(QUIET);

    const payload = 'x'.repeat(8 * 1024);
    const batch = `PUB fan ${payload.length}\r\n${payload}\r\n`.repeat(16);
    const started = performance.now();
    let published = 0;
    while ((await slowConsumers()) === 0) {
      expect(performance.now() - started, 'the stalled subscriber is never cut').toBeLessThan(
        20_000,
      );
      await publisher.send(batch);
      await publisher.sync();
      published += 16;
    }
    const cutAfter = performance.now() - started;

    const frameBytes = `MSG fan 1 ${payload.length}\r\n`.length + payload.length + 2;
    await vi.waitFor(
      () => {
        // Whole messages: a keepalive PING may come along with them.
        for (const watch of watches) expect(Math.floor(watch.bytes / frameBytes)).toBe(published);
      },
      { timeout: 10_000 },
    );
    // nats-server stalls the publisher again and again (up to 1 s each time) while the stalled
    // subscriber's pending is past half of max_pending, until its write deadline cuts it.
    const longestSilence = Math.max(...watches.map((watch) => watch.longestSilence));
    expect(longestSilence).toBeLessThan(750);
    expect(await closeReasons(server)).toContain('Slow Consumer (Pending Bytes)');
    expect(fast.every((client) => !client.isClosed)).toBe(true);
    console.info(
      `stalled subscriber cut after ${(cutAfter / 1000).toFixed(1)} s; ${published} messages reached all 20 fast ones, longest silence ${longestSilence.toFixed(0)} ms`,
    );
  }, 60_000);
});

/**
 * Counts the bytes a subscriber receives from now on and the longest time between two of its
 * socket reads, keeping none of the bytes (RawClient keeps all it reads as text, too much here).
 */
function watchDeliveries(client: RawClient): { bytes: number; longestSilence: number } {
  const watch = { bytes: 0, longestSilence: 0 };
  let last: number | undefined;
  client.socket.removeAllListeners('data');
  client.socket.on('data', (chunk: string) => {
    const now = performance.now();
    if (last !== undefined) watch.longestSilence = Math.max(watch.longestSilence, now - last);
    last = now;
    watch.bytes += chunk.length;
  });
  return watch;
}
