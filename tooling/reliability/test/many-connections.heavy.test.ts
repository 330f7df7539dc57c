// The CI subset of the campaign's many-connections section: 1,000 connections (10,000 in the
// campaign) with 2 subscriptions each and a trickle, against slipstream-server.
import { slipstreamServerBin } from '@slipstream/test-servers';
import { describe, expect, it } from 'vitest';
import { runManyConnections } from '../src/load/many-connections.js';
import { connectionFigures } from '../src/sections/many-connections.js';

describe('slipstream-server with many connections', () => {
  it('keeps 1,000 connections with 2 subscriptions each and delivers their trickle', async () => {
    const trickleMs = 5_000;
    const run = await runManyConnections({
      bin: slipstreamServerBin,
      connections: 1_000,
      trickleMs,
    });
    console.log(JSON.stringify(run));
    expect(run.expectedDeliveries).toBeGreaterThan(1_000);
    expect(connectionFigures(run, trickleMs).filter((figure) => figure.holds === false)).toEqual(
      [],
    );
  }, 60_000);
});
