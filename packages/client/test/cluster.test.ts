import { freePort, type RunningNatsServer, startNatsServer } from '@slipstream/test-servers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, createInbox, type Status } from '../src/node.js';
import { waitFor } from './servers.js';

describe('a two-node nats-server 2.9.10 cluster', () => {
  let a: RunningNatsServer;
  let b: RunningNatsServer;
  beforeAll(async () => {
    const [routeA, routeB] = [await freePort(), await freePort()];
    const cluster = (own: number, peer: number) =>
      `cluster { name: c, listen: "127.0.0.1:${own}", routes: ["nats-route://127.0.0.1:${peer}"] }`;
    a = await startNatsServer({ config: cluster(routeA, routeB) });
    b = await startNatsServer({ config: cluster(routeB, routeA) });
  });
  afterAll(async () => {
    await a?.stop();
    await b?.stop();
  });

  it('follows the cluster through INFO connect_urls (update events) and fails over', async () => {
    const nc = await connect({ servers: a.url, reconnectTimeWait: 50 });
    const events: Status[] = [];
    void (async () => {
      for await (const s of nc.status()) events.push(s);
    })();
    const bHost = `127.0.0.1:${b.port}`;
    const update = (kind: 'added' | 'deleted') =>
      events.some((e) => e.type === 'update' && e[kind]?.includes(bHost));
    await waitFor(() => nc.info?.connect_urls?.length === 2, 'a to announce b');
    // Withdrawn when its route drops, announced again when it is back: both as update events.
    await b.kill();
    await waitFor(() => update('deleted'), 'b to be withdrawn');
    b = await b.restart();
    await waitFor(() => update('added'), 'b to be announced again');
    const subject = createInbox();
    let n = 0;
    nc.subscribe(subject, { callback: () => void n++ });
    await nc.flush();
    await a.kill();
    await waitFor(() => events.some((e) => e.type === 'reconnect'), 'reconnect');
    expect(nc.getServer()).toBe(`127.0.0.1:${b.port}`);
    nc.publish(subject);
    await nc.flush();
    expect(n).toBe(1);
    await nc.close();
  });

  it('ignores announced servers with ignoreClusterUpdates, so it cannot fail over', async () => {
    a = await a.restart(); // the first test stopped it
    const nc = await connect({
      servers: b.url,
      ignoreClusterUpdates: true,
      maxReconnectAttempts: 2,
      reconnectTimeWait: 50,
    });
    const events: string[] = [];
    void (async () => {
      for await (const s of nc.status()) events.push(s.type);
    })();
    // b announces a once the route is up; the client sees it in INFO but must not use it.
    await waitFor(() => nc.info?.connect_urls?.length === 2, 'b to announce a');
    await b.kill();
    expect(await nc.closed()).toBeInstanceOf(Error);
    expect(events).not.toContain('update');
    expect(events).not.toContain('reconnect');
  });
});
