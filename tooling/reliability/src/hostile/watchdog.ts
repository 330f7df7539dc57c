import { connect, type NatsConnection } from '@slipstream/client';

/** What a well-behaved client saw while the server was under attack. */
export interface WatchdogReport {
  /** PINGs it sent (one a tick) and PONGs that came back within the limit. */
  readonly pings: number;
  readonly pongsInTime: number;
  /** The slowest PONG, in milliseconds. */
  readonly slowestPongMs: number;
  /** Messages it published to itself and got back. */
  readonly published: number;
  readonly received: number;
}

/** A PONG later than this counts as the server not serving the client. */
const PONG_LIMIT_MS = 2_000;

/**
 * A well-behaved client beside the hostile ones: every tick it publishes to its own subscription
 * and waits for a PONG. `stop()` gives what it saw.
 */
export async function startWatchdog(
  url: string,
  tickMs = 100,
): Promise<{ stop(): Promise<WatchdogReport> }> {
  const nc: NatsConnection = await connect({ servers: url, name: 'watchdog' });
  let received = 0;
  nc.subscribe('watchdog.>', {
    callback: () => {
      received++;
    },
  });
  await nc.flush();
  let pings = 0;
  let pongsInTime = 0;
  let published = 0;
  let slowestPongMs = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      nc.publish(`watchdog.${published}`, 'still here');
      published++;
      pings++;
      const sent = performance.now();
      try {
        await Promise.race([
          nc.flush(),
          new Promise((_, reject) => setTimeout(() => reject(new Error('late')), PONG_LIMIT_MS)),
        ]);
        pongsInTime++;
      } catch {
        // counted by pings - pongsInTime
      }
      slowestPongMs = Math.max(slowestPongMs, performance.now() - sent);
      await new Promise((resolve) => setTimeout(resolve, tickMs));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      await nc.flush().catch(() => {});
      await nc.close();
      return { pings, pongsInTime, slowestPongMs: Math.round(slowestPongMs), published, received };
    },
  };
}
