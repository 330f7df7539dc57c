/**
 * One load generator of the cluster bench, in a worker thread so that N of them use N cores: it
 * drives one member with @slipstream/client, its pub→sub subscriber on the next member. The main
 * thread posts a round ({ workload, count }); the worker answers with the round's figures.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { importIfBuilt } from './harness/optional.js';
import { type BenchConnection, publishOnly, pubSub, type Target } from './nats-workloads.js';

export interface ClusterWorkerData {
  readonly index: number;
  readonly url: string;
  readonly subscriberUrl: string;
}
export type ClusterWorkload = 'publish' | 'pubsub';
export interface ClusterRound {
  readonly workload: ClusterWorkload;
  readonly count: number;
  readonly size: number;
}
export type ClusterRoundAnswer = { readonly done: true } | { readonly error: string };

const port = parentPort;
if (!port) throw new Error('cluster-worker runs as a worker thread');
const { index, url, subscriberUrl } = workerData as ClusterWorkerData;
const client = await importIfBuilt<{ connect(o: { servers: string }): Promise<BenchConnection> }>(
  '@slipstream/client',
  ['connect'],
);
if ('skipped' in client) throw new Error(client.skipped);
const target: Target = {
  connect: (server) => client.module.connect({ servers: server }),
  url,
  subscriberUrl,
};

port.on('message', async (round: ClusterRound) => {
  try {
    if (round.workload === 'publish') await publishOnly(target, round.count, round.size);
    else
      await pubSub(target, {
        count: round.count,
        size: round.size,
        subscribers: 1,
        subject: `bench.cluster.${index}`,
      });
    port.postMessage({ done: true } satisfies ClusterRoundAnswer);
  } catch (error) {
    port.postMessage({ error: String(error) } satisfies ClusterRoundAnswer);
  }
});
port.postMessage({ done: true } satisfies ClusterRoundAnswer);
