import { afterEach, describe, expect, it } from 'vitest';
import { client, firstDelivery } from './leafnode-support.js';
import type { OfficialConnection } from './official-connection.js';
import { type ClusterMember, clusterPorts, natsMember, ourMember } from './route-support.js';

const running: ClusterMember[] = [];
const connections: OfficialConnection[] = [];
afterEach(async () => {
  await Promise.all(connections.splice(0).map((nc) => nc.close().catch(() => undefined)));
  for (const member of running.splice(0).reverse()) await member.stop();
});

async function open(member: ClusterMember, reconnect = false): Promise<OfficialConnection> {
  const nc = await client(member.url, reconnect);
  connections.push(nc);
  return nc;
}

/** The clusters the issue asks for; ours dials one member and learns the others from it. */
const clusters = [
  {
    name: 'ours as a member of a 3-node nats-server cluster',
    start: async () => {
      const ports = await clusterPorts(4);
      const natsPorts = ports.slice(0, 3);
      const members: ClusterMember[] = [];
      for (const port of natsPorts) members.push(await natsMember(port, natsPorts));
      members.push(await ourMember(ports[3]!, [natsPorts[0]!]));
      return members;
    },
  },
  {
    name: 'a cluster of 3 of ours',
    start: async () => {
      const ports = await clusterPorts(3);
      return [
        await ourMember(ports[0]!, []),
        await ourMember(ports[1]!, [ports[0]!]),
        await ourMember(ports[2]!, [ports[0]!]),
      ];
    },
  },
];

describe.each(clusters)('$name', (cluster) => {
  async function members(): Promise<ClusterMember[]> {
    const started = await cluster.start();
    running.push(...started);
    return started;
  }

  it('carries messages between every pair of members (a full mesh from one route each)', async () => {
    const all = await members();
    const ncs = await Promise.all(all.map((m) => open(m)));
    for (let to = 0; to < ncs.length; to++) {
      for (let from = 0; from < ncs.length; from++) {
        if (from === to) continue;
        const subject = `mesh.${from}.${to}`;
        const sub = ncs[to]!.subscribe(subject);
        const msg = await firstDelivery(ncs[from]!, subject, sub, `from ${from}`);
        expect(msg.string()).toBe(`from ${from}`);
        sub.unsubscribe();
      }
    }
  });
});
