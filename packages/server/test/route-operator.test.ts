import { connect, jwtAuthenticator } from '@nats-io/transport-node';
import {
  type RunningAccountServer,
  startAccountServer,
  TestOperator,
} from '@slipstream/test-servers';
import { afterEach, expect, it } from 'vitest';
import { firstDelivery } from './leafnode-support.js';
import type { OfficialConnection } from './official-connection.js';
import { type ClusterMember, clusterPorts, ourMember } from './route-support.js';

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

it('takes interest in an account a member fetches only later (operator mode, URL resolver)', async () => {
  const operator = new TestOperator();
  const shop = operator.account('SHOP');
  const accounts: RunningAccountServer = await startAccountServer(operator.preload(), {
    home: true,
  });
  cleanup.push(() => accounts.close());
  const options = {
    operator: { jwts: [operator.jwt], resolver: { type: 'url' as const, url: accounts.url } },
  };
  const [first, second] = await clusterPorts(2);
  const members: ClusterMember[] = [
    await ourMember(first!, [], {}, options),
    await ourMember(second!, [first!], {}, options),
  ];
  cleanup.push(() => Promise.all(members.map((m) => m.stop())));
  const login = async (member: ClusterMember): Promise<OfficialConnection> => {
    const user = shop.user('clerk');
    const nc = await connect({
      servers: member.url,
      authenticator: jwtAuthenticator(user.jwt, user.seed),
    });
    cleanup.push(() => nc.close());
    return nc;
  };
  // The first member fetches SHOP and announces the interest before the second has SHOP.
  const subscriber = await login(members[0]!);
  const sub = subscriber.subscribe('orders');
  await subscriber.flush();
  const publisher = await login(members[1]!);
  expect((await firstDelivery(publisher, 'orders', sub, 'one')).string()).toBe('one');
});
