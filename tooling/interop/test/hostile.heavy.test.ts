import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { connect as tcpConnect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from '@nats-io/transport-node';
import { peakRssBytes, startNatsServer } from '@slipstream/test-servers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { floodFrames, hostileFrame, seededRandom } from './support/hostile-frames.js';
import { startSlipstreamProcess } from './support/server-process.js';

const attackMs = 5_000;
/** Raw connections open at once. Bounded so that the test process, which runs the attackers and
 * the well-behaved client on one event loop, still gets its turn on a loaded 2-core machine. */
const concurrent = 30;
const maxAttackers = 1_500;
/** A request unanswered this long means the server went silent (generous: CI shares 2 cores). */
const silenceMs = 30_000;
/** Generous: Node itself takes ~50 MiB; per-connection pending output is capped at 1 MiB below. */
const rssLimit = 300 * 1024 * 1024;
const seed = Number(process.env.HOSTILE_SEED ?? Date.now() % 2 ** 31);
/**
 * The well-behaved client's service, on a subject no hostile frame names (they publish to
 * `svc.echo`). A server forwards a publisher's bytes as they are, nats-server included, so a
 * mangled reply subject published to the client's own subject can break the client's parser
 * whatever the server (seed 804270166 did that to the official client on nats-server); what this
 * test proves is that the server stays up and keeps serving, so the attacks stay off that subject.
 */
const serviceSubject = 'probe.echo';

// write_deadline stays at nats-server's default: this test process runs the attackers and the
// well-behaved client on one event loop, and with a shorter deadline a CI-loaded machine starved
// that client's reads long enough for nats-server to cut it off as a slow consumer.
const limits = 'max_pending: 1MB\nmax_payload: 64KB\nwrite_deadline: "10s"\n';

interface Target {
  readonly port: number;
  readonly httpPort: number;
  readonly url: string;
  alive(): boolean;
  /** The most resident memory the server process has used so far, in bytes. */
  peakRss(): number;
  stop(): Promise<unknown>;
}

/** Ours runs as the real app process (`node apps/server/dist/main.js -c …`); the reference the same way. */
const targets: readonly { name: string; start(): Promise<Target> }[] = [
  {
    name: 'slipstream-server process',
    start: async () => {
      const dir = await mkdtemp(join(tmpdir(), 'hostile-'));
      const config = join(dir, 'server.conf');
      await writeFile(config, limits);
      const server = await startSlipstreamProcess(['-c', config]);
      return {
        ...server,
        alive: () => server.child.exitCode === null && server.child.signalCode === null,
        peakRss: () => peakRssBytes(server.child.pid!),
        stop: async () => {
          await server.stop();
          await rm(dir, { recursive: true, force: true });
        },
      };
    },
  },
  {
    name: 'nats-server 2.9.10',
    start: async () => {
      const server = await startNatsServer({ config: limits, monitoring: true });
      return {
        port: server.port,
        httpPort: server.httpPort!,
        url: server.url,
        alive: () => server.process.exitCode === null && server.process.signalCode === null,
        peakRss: () => peakRssBytes(server.process.pid!),
        stop: () => server.stop(),
      };
    },
  },
];

describe.each(targets)(`hostile input against a live $name (seed ${seed})`, (kind) => {
  let server: Target;

  beforeAll(async () => {
    server = await kind.start();
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('stays up, keeps answering a well-behaved client, and keeps memory bounded', async () => {
    const nc = await connect({ servers: server.url, reconnect: false });
    // Said with any failure: a client that was cut off is a different story from a silent server.
    const clientEvents: string[] = [];
    void (async () => {
      for await (const s of nc.status())
        clientEvents.push(`${s.type}${'error' in s ? `: ${s.error}` : ''}`);
    })();
    nc.subscribe(serviceSubject, {
      callback: (_e, m) => {
        m.respond(m.data);
      },
    });
    await nc.flush();

    const deadline = Date.now() + attackMs;
    let sent = 0;
    let answered = 0;
    let slowest = 0;
    const failures: string[] = [];
    const client = (async () => {
      for (let i = 0; Date.now() < deadline; i++) {
        const payload = `request ${i}`;
        const sentAt = performance.now();
        sent++;
        try {
          const reply = await nc.request(serviceSubject, payload, { timeout: silenceMs });
          slowest = Math.max(slowest, performance.now() - sentAt);
          if (reply.string() === payload) answered++;
          else failures.push(`request ${i}: wrong reply ${reply.string()}`);
        } catch (error) {
          failures.push(`request ${i}: ${(error as Error).message}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    })();

    // Attack n is the same in every run with this seed, whenever it starts and whichever
    // attacker runs it: its own generator, seeded from a list drawn before the first socket.
    const attackSeeds = drawSeeds(seed, maxAttackers);
    let launched = 0;
    const attacker = async () => {
      while (Date.now() < deadline && launched < maxAttackers) {
        const plan = planAttack(seededRandom(attackSeeds[launched++]!));
        await attack(server.port, plan, deadline);
      }
    };
    await Promise.all([client, ...Array.from({ length: concurrent }, attacker)]);
    const peakRss = server.peakRss();

    expect(server.alive()).toBe(true);
    expect({ failures, clientEvents }).toEqual({ failures: [], clientEvents: [] });
    expect(sent).toBeGreaterThan(0);
    expect(answered).toBe(sent);
    expect(peakRss).toBeLessThan(rssLimit);

    // Still fully working afterwards: a request answers and monitoring reports on the survivors.
    const after = await nc.request(serviceSubject, 'after', { timeout: silenceMs });
    expect(after.string()).toBe('after');
    const varz = (await (await fetch(`http://127.0.0.1:${server.httpPort}/varz`)).json()) as {
      connections: number;
    };
    expect(varz.connections).toBeGreaterThanOrEqual(1);
    await nc.close();
    console.info(
      `hostile (${kind.name}): ${launched} raw connections, ${answered} requests answered (slowest ${slowest.toFixed(0)} ms), peak RSS ${(peakRss / 2 ** 20).toFixed(0)} MiB`,
    );
  }, 60_000);
});

function drawSeeds(seed: number, count: number): number[] {
  const rand = seededRandom(seed);
  return Array.from({ length: count }, () => Math.floor(rand() * 2 ** 32));
}

/** Everything one raw connection will do, drawn before it connects. */
interface AttackPlan {
  readonly neverReads: boolean;
  readonly flood: boolean;
  readonly frames: readonly Uint8Array[];
  /** How long the socket stays open after connecting, in ms. */
  readonly lifetime: number;
}

function planAttack(rand: () => number): AttackPlan {
  const neverReads = rand() < 0.25;
  const flood = rand() < 0.1;
  const frames = Array.from({ length: 1 + Math.floor(rand() * 20) }, () => hostileFrame(rand));
  return { neverReads, flood, frames, lifetime: Math.floor(rand() * 300) };
}

const flood = floodFrames(200, 1024);

/** One raw connection: some frames, maybe a flood, maybe never reading, then gone. */
function attack(port: number, plan: AttackPlan, deadline: number): Promise<void> {
  return new Promise((resolve) => {
    const socket = tcpConnect(port, '127.0.0.1');
    socket.on('error', () => {});
    socket.on('close', () => resolve());
    if (plan.neverReads) socket.pause();
    else socket.on('data', () => {});
    socket.on('connect', () => {
      if (plan.flood) socket.write(flood);
      for (const frame of plan.frames) {
        if (socket.destroyed) break;
        socket.write(frame);
      }
      const end = Math.min(plan.lifetime, Math.max(0, deadline - Date.now()));
      setTimeout(() => socket.destroy(), end);
    });
  });
}
