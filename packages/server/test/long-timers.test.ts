import { describe, expect, it } from 'vitest';
import { delay } from './raw-client.js';
import { bothServers, closedAfterEach } from './targets.js';

/**
 * Configured timeouts longer than Node's setTimeout limit (about 24.8 days), which Node would run
 * after 1 ms: a ping interval or auth timeout of 30 days must mean 30 days, as it does for
 * nats-server's Go timers.
 */
const THIRTY_DAYS = 30 * 24 * 3600 * 1000;

describe.each(bothServers)('30-day timers on $name', (target) => {
  const resources = closedAfterEach(target);

  it('sends no PING for a 30-day ping interval', async () => {
    // Before CONNECT the first PING waits a whole interval.
    const server = await resources.start({ pingInterval: THIRTY_DAYS, pingMax: 1 });
    const client = await resources.connect(server);
    await delay(300);
    expect(client.afterInfo()).toBe('');
    expect(client.isClosed).toBe(false);
  });

  it('keeps a client without CONNECT for a 30-day auth timeout', async () => {
    const server = await resources.start({
      authorization: { user: 'a', pass: 'b' },
      authTimeout: THIRTY_DAYS,
    });
    const client = await resources.connect(server);
    await delay(300);
    expect(client.afterInfo()).toBe('');
    expect(client.isClosed).toBe(false);
  });
});
