import { join } from 'node:path';
import { connect } from '@slipstream/client';
import { type RunningNatsServer, startNatsServer } from '@slipstream/test-servers';
import { LazyFs } from './lazyfs.js';
import { Ledger } from './ledger.js';
import { startRetryingRebuilds } from './start-retry.js';
import { type Findings, type Loss, verify } from './verify.js';
import { createWorkload, startStorm } from './workload.js';

/** A server put through the power-loss cycles. */
export interface Target {
  readonly name: string;
  /** The server's executable (slipstream-server's bin); nats-server when undefined. */
  readonly bin?: string;
  /** Lines added inside the config's `jetstream { }` block, e.g. `sync_interval: "1s"`. */
  readonly jetstream?: string;
}

export interface CycleOptions {
  readonly lazyfsBinary: string;
  readonly workDir: string;
  /** Stop after this many cycles... */
  readonly maxCycles: number;
  /** ...or when this time (ms since the epoch) has passed, after at least `minCycles` cycles. */
  readonly deadline: number;
  /** Cycles run even past the deadline (1 by default): a promise counted in cycles needs them. */
  readonly minCycles?: number;
  /** The storm runs for a random time in [min, max) ms before the crash. */
  readonly stormMs?: readonly [number, number];
  readonly log: (line: string) => void;
}

/** What the cycles of one target found, over all of them. */
export interface Outcome {
  readonly target: string;
  cycles: number;
  readonly ledger: Ledger;
  /** Confirmed writes found missing, each counted once (by what was lost). */
  readonly lostMessages: Map<string, Loss>;
  readonly lostKvPuts: Map<string, Loss>;
  readonly lostAcks: Map<string, Loss>;
  /** Stream openings that failed after a restart (a stream counted once per cycle). */
  streamsNotOpening: number;
  /** Restarts after which the server did not start again (the cycles end there). */
  failedRestarts: number;
  readonly problems: string[];
}

/**
 * Runs power-loss cycles against one target: its store directory on a lazyfs mount, a publish
 * storm, then at a random moment the server killed with SIGKILL and the filesystem crashed (its
 * unsynced data dropped), remounted, the server restarted on what survived and checked against
 * what it had confirmed. One store for all the cycles; a last check reads back everything ever
 * acknowledged.
 */
export async function runCycles(target: Target, options: CycleOptions): Promise<Outcome> {
  const dir = join(options.workDir, target.name.replace(/[^a-z0-9]+/gi, '-'));
  const fs = new LazyFs(
    options.lazyfsBinary,
    join(dir, 'backing'),
    join(dir, 'mount'),
    join(dir, 'fail-fsync'),
  );
  const outcome: Outcome = {
    target: target.name,
    cycles: 0,
    ledger: new Ledger(),
    lostMessages: new Map(),
    lostKvPuts: new Map(),
    lostAcks: new Map(),
    streamsNotOpening: 0,
    failedRestarts: 0,
    problems: [],
  };
  const [stormMin, stormMax] = options.stormMs ?? [300, 1_500];
  await fs.mount();
  let server: RunningNatsServer | undefined;
  try {
    server = await startRetryingRebuilds(
      () =>
        startNatsServer({
          bin: target.bin,
          config: `jetstream {\n  store_dir: "${fs.mountPoint}"\n  ${target.jetstream ?? ''}\n}`,
        }),
      options.log,
    );
    let live: RunningNatsServer = server;
    await createWorkload(live.url);
    while (
      outcome.cycles < options.maxCycles &&
      (outcome.cycles < (options.minCycles ?? 1) || Date.now() < options.deadline)
    ) {
      const cycle = outcome.cycles + 1;
      const since = Date.now();
      const storm = await startStorm(live.url, cycle, outcome.ledger);
      await new Promise((r) => setTimeout(r, stormMin + Math.random() * (stormMax - stormMin)));
      const crashAt = Date.now();
      await live.kill('SIGKILL');
      await fs.crash();
      await storm.end();
      outcome.cycles = cycle;
      await fs.mount();
      const restartedAt = Date.now();
      try {
        const stopped = live;
        live = await startRetryingRebuilds(() => stopped.restart(), options.log);
        server = live;
      } catch (error) {
        outcome.failedRestarts++;
        outcome.problems.push(
          `cycle ${cycle}: the server did not start again: ${(error as Error).message}`,
        );
        server = undefined;
        break;
      }
      const checkedAt = Date.now();
      const findings = await check(live.url, outcome, { since, crashAt, restartedAt });
      try {
        // What did not survive is made again, as an operator would, so the cycles go on.
        await createWorkload(live.url);
      } catch (error) {
        outcome.problems.push(
          `cycle ${cycle}: the streams could not be made again: ${(error as Error).message}`,
        );
        break;
      }
      options.log(
        `${target.name} cycle ${cycle}: ${outcome.ledger.messageCount} acknowledged, ${findings.lostMessages.length} lost now (${outcome.lostMessages.size} in all); ` +
          `${outcome.ledger.ackCount} acks confirmed, ${outcome.lostAcks.size} lost; ${outcome.lostKvPuts.size} KV puts lost; ${outcome.streamsNotOpening} stream openings failed ` +
          `(restart ${checkedAt - restartedAt} ms, check ${Date.now() - checkedAt} ms)`,
      );
    }
    if (server !== undefined) {
      // Everything ever acknowledged, not only the last cycle's: an earlier loss shows here.
      await check(server.url, outcome, { since: 0, crashAt: Date.now(), restartedAt: 0 });
    }
  } finally {
    await server?.stop();
    await fs.crash();
  }
  return outcome;
}

async function check(
  url: string,
  outcome: Outcome,
  options: { since: number; crashAt: number; restartedAt: number },
): Promise<Findings> {
  const nc = await connect({ servers: url });
  try {
    const findings = await verify(nc, outcome.ledger, options);
    for (const loss of findings.lostMessages) keepFirst(outcome.lostMessages, loss);
    for (const loss of findings.lostKvPuts) keepFirst(outcome.lostKvPuts, loss);
    for (const loss of findings.lostAcks) keepFirst(outcome.lostAcks, loss);
    outcome.streamsNotOpening += findings.streamsNotOpening.length;
    outcome.problems.push(...findings.streamsNotOpening, ...findings.problems);
    return findings;
  } finally {
    await nc.close();
  }
}

function keepFirst(losses: Map<string, Loss>, loss: Loss) {
  if (!losses.has(loss.what)) losses.set(loss.what, loss);
}
