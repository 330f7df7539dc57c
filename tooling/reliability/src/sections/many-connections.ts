import { slipstreamServerBin } from '@slipstream/test-servers';
import { type ManyConnectionsRun, runManyConnections } from '../load/many-connections.js';
import type { Figure, Section, SectionContext } from '../section.js';

export const FULL_CONNECTIONS = 10_000;

/** 10,000 connections with 2 subscriptions each and a slow trickle: ours, then nats-server's. */
export const manyConnections: Section = {
  name: 'many-connections',
  title: 'Many connections',
  share: 1,
  async run(context: SectionContext) {
    // Two runs, each about 10 s of connecting, settling and closing around its trickle.
    const trickleMs = Math.max(5_000, Math.min(60_000, context.budgetMs / 2 - 10_000));
    const ours = await runManyConnections({
      bin: slipstreamServerBin,
      connections: FULL_CONNECTIONS,
      trickleMs,
    });
    context.log(`slipstream ${JSON.stringify(ours)}`);
    const nats = await runManyConnections({ connections: FULL_CONNECTIONS, trickleMs });
    context.log(`nats-server ${JSON.stringify(nats)}`);
    return { figures: connectionFigures(ours, trickleMs, nats), details: DETAILS };
  },
};

export function connectionFigures(
  ours: ManyConnectionsRun,
  trickleMs: number,
  nats?: ManyConnectionsRun,
): Figure[] {
  const trials = `${ours.connections} connections × 2 subscriptions, ${Math.round(trickleMs / 1_000)} s of trickle`;
  const memory = (run: ManyConnectionsRun) =>
    `${run.kibPerConnection} KiB (RSS ${run.rssBeforeMiB} → ${run.rssAfterMiB} MiB)`;
  const delivered = (run: ManyConnectionsRun) => `${run.delivered} of ${run.expectedDeliveries}`;
  return [
    {
      check: 'server memory per connection',
      trials,
      ours: memory(ours),
      reference: nats && memory(nats),
    },
    {
      check: 'seconds to open them all',
      trials,
      ours: `${ours.connectSeconds}`,
      reference: nats && `${nats.connectSeconds}`,
    },
    {
      check: 'connections dropped by the server',
      trials,
      ours: `${ours.dropped}`,
      reference: nats && `${nats.dropped}`,
      holds: ours.dropped === 0,
    },
    {
      check: 'trickle deliveries received',
      trials,
      ours: delivered(ours),
      reference: nats && delivered(nats),
      holds: ours.delivered === ours.expectedDeliveries,
    },
  ];
}

const DETAILS = [
  'One process opens raw sockets to the server, 100 at a time, each past CONNECT, two SUBs (its own',
  'subject and one they all share) and a PONG; then a publisher sends a trickle: every 10 ms one',
  "message to one connection, every 2 s one to all of them. Memory per connection is the server's",
  'RSS (VmRSS) after the trickle and a second of rest, less its RSS before the first connection,',
  'divided by the connections: it includes the subscriptions and whatever buffers a connection',
  'keeps. Both servers run with `max_connections: 100000`; the descriptor limit of the machine',
  '(`ulimit -n`) must leave room for them and for the clients.',
].join('\n');
