/**
 * A cluster of N members of one server kind on 127.0.0.1, each on free client and route ports,
 * every member given every other's route URL (`--cluster`, `--cluster_name`, `--routes`, the
 * flags of nats-server that ours takes too). No JetStream: the cluster bench measures core NATS.
 */
import { existsSync } from 'node:fs';
import {
  freePort,
  requireSystemComponent,
  type ServerProcess,
  slipstreamServerBin,
  startServerProcess,
} from '@slipstream/test-servers';
import type { BenchConnection } from './nats-workloads.js';

export type ClusterServerKind = 'nats-server' | 'slipstream';
export const CLUSTER_SERVER_KINDS: readonly ClusterServerKind[] = ['nats-server', 'slipstream'];

export interface ClusterMembers {
  readonly kind: ClusterServerKind;
  readonly members: readonly ServerProcess[];
  stop(): Promise<void>;
}

/** Time for the routes of a fresh cluster to form (nats-server retries a route every second). */
const FORM_TIMEOUT_MS = 20_000;

/**
 * Starts the members one after another (a route to a member not yet up is retried by its
 * dialler), then waits until a message published on each member reaches a subscriber on every
 * other: the routes are up and carry interest both ways.
 */
export async function startCluster(
  kind: ClusterServerKind,
  size: number,
  connect: (url: string) => Promise<BenchConnection>,
): Promise<ClusterMembers> {
  const command = clusterCommand(kind);
  const routePorts = await Promise.all(Array.from({ length: size }, () => freePort()));
  const members: ServerProcess[] = [];
  const stop = async () => {
    await Promise.all(members.map((member) => member.stop()));
  };
  try {
    for (const [index, routePort] of routePorts.entries()) {
      const routes = routePorts.filter((_, other) => other !== index);
      const clusterArgs =
        size === 1
          ? []
          : [
              '--cluster',
              `nats://127.0.0.1:${routePort}`,
              '--cluster_name',
              'bench',
              ...(routes.length > 0
                ? ['--routes', routes.map((port) => `nats://127.0.0.1:${port}`).join(',')]
                : []),
            ];
      members.push(
        await startServerProcess(command[0], (port) => [
          ...command.slice(1),
          '-a',
          '127.0.0.1',
          '-p',
          String(port),
          ...clusterArgs,
        ]),
      );
    }
    await routesCarryMessages(members, connect);
    return { kind, members, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

function clusterCommand(kind: ClusterServerKind): string[] {
  if (kind === 'nats-server') return [requireSystemComponent('nats-server')];
  if (!existsSync(slipstreamServerBin)) {
    throw new Error(`slipstream-server not built yet (${slipstreamServerBin} missing)`);
  }
  return [process.execPath, slipstreamServerBin];
}

/** Resolves once every member's publish reaches a subscriber on each member (itself included). */
async function routesCarryMessages(
  members: readonly ServerProcess[],
  connect: (url: string) => Promise<BenchConnection>,
): Promise<void> {
  const connections = await Promise.all(members.map((member) => connect(member.url)));
  try {
    const heard = new Set<string>();
    for (const [index, nc] of connections.entries()) {
      nc.subscribe('bench.cluster.formed.>', {
        callback: (_error, msg) => heard.add(`${new TextDecoder().decode(msg.data)}>${index}`),
      });
      await nc.flush();
    }
    const expected = members.length * members.length;
    const deadline = Date.now() + FORM_TIMEOUT_MS;
    while (heard.size < expected) {
      if (Date.now() > deadline) {
        const said = members.map((m, i) => `member ${i}: ${lastLine(m.output())}`).join('; ');
        throw new Error(
          `the cluster of ${members.length} did not form in ${FORM_TIMEOUT_MS / 1000} s (${heard.size} of ${expected} member pairs carried a message; ${said})`,
        );
      }
      for (const [index, nc] of connections.entries()) {
        nc.publish(`bench.cluster.formed.${index}`, new TextEncoder().encode(String(index)));
        await nc.flush();
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  } finally {
    await Promise.all(connections.map((nc) => nc.close()));
  }
}

function lastLine(output: string): string {
  return output.trimEnd().split('\n').at(-1) ?? '';
}
