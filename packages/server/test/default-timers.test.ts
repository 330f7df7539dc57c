import { describe, expect, it } from 'vitest';
import { bothServers, closedAfterEach } from './targets.js';

/**
 * The timers a server runs with when nothing is configured, as the README promises them and
 * nats-server 2.9.10 keeps them. Each is measured from just before the client connects, so the
 * server's timer cannot have started earlier; the upper bounds leave room for a loaded machine.
 */
describe.each(bothServers)('default timers of $name', (target) => {
  const resources = closedAfterEach(target);

  // The CONNECT counts as activity and gives a first round-trip estimate, yet the PING still goes
  // out: no PING has measured the round trip yet.
  it('sends the first PING 2 s after a client connects (plus up to 20 % jitter)', async () => {
    const server = await resources.start();
    const opened = performance.now();
    const client = await resources.connect(server);
    await client.send('CONNECT {"verbose":false}\r\n');
    await client.waitFor('PING\r\n', 3_500);
    // The default ping interval is 2 minutes; the first PING comes at min(interval, 2 s).
    const elapsed = performance.now() - opened;
    expect(elapsed).toBeGreaterThan(1_950);
    expect(elapsed).toBeLessThan(2_400 + 700);
  });

  it('closes a client that sends no CONNECT within the 2 s auth timeout', async () => {
    const server = await resources.start({ authorization: { user: 'a', pass: 'b' } });
    const opened = performance.now();
    const client = await resources.connect(server);
    expect(client.info().auth_required).toBe(true);
    await client.waitClosed(5_000);
    const elapsed = performance.now() - opened;
    expect(client.afterInfo()).toBe("-ERR 'Authentication Timeout'\r\n");
    expect(elapsed).toBeGreaterThan(1_950);
    expect(elapsed).toBeLessThan(2_000 + 700);
  });
});
