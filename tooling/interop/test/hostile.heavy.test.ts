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
const concurrent = 40;
const maxAttackers = 1_500;
/** A request unanswered this long means the server went silent (generous: CI shares 2 cores). */
const silenceMs = 10_000;
/** Generous: Node itself takes ~50 MiB; per-connection pending output is capped at 1 MiB below. */
const rssLimit = 300 * 1024 * 1024;
const seed = Number(process.env.HOSTILE_SEED ?? Date.now() % 2 ** 31);

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
    const rand = seededRandom(seed);
    const nc = await connect({ servers: server.url, reconnect: false });
    // Said with any failure: a client that was cut off is a different story from a silent server.
    const clientEvents: string[] = [];
    void (async () => {
      for await (const s of nc.status())
        clientEvents.push(`${s.type}${'error' in s ? `: ${s.error}` : ''}`);
    })();
    nc.subscribe('svc.echo', {
      callback: (_e, m) => {
        m.respond(m.data);
      },
    });
    await nc.flush();

    const deadline = Date.now() + attackMs;
    let answered = 0;
    let slowest = 0;
    const failures: string[] = [];
    const client = (async () => {
      for (let i = 0; Date.now() < deadline; i++) {
        const payload = `request ${i}`;
        const sent = performance.now();
        try {
          const reply = await nc.request('svc.echo', payload, { timeout: silenceMs });
          slowest = Math.max(slowest, performance.now() - sent);
          if (reply.string() === payload) answered++;
          else failures.push(`request ${i}: wrong reply ${reply.string()}`);
        } catch (error) {
          failures.push(`request ${i}: ${(error as Error).message}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    })();

    let launched = 0;
    const attacker = async () => {
      while (Date.now() < deadline && launched < maxAttackers) {
        launched++;
        await attack(server.port, rand, deadline);
      }
    };
    await Promise.all([client, ...Array.from({ length: concurrent }, attacker)]);
    const peakRss = server.peakRss();

    expect(server.alive()).toBe(true);
    expect({ failures, clientEvents }).toEqual({ failures: [], clientEvents: [] });
    expect(answered).toBeGreaterThan(0);
    expect(peakRss).toBeLessThan(rssLimit);

    // Still fully working afterwards: a request answers and monitoring reports on the survivors.
    const after = await nc.request('svc.echo', 'after', { timeout: silenceMs });
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

/** One raw connection: some frames, maybe a flood, maybe never reading, then gone. */
function attack(port: number, rand: () => number, deadline: number): Promise<void> {
  return new Promise((resolve) => {
    const socket = tcpConnect(port, '127.0.0.1');
    const neverReads = rand() < 0.25;
    const flood = rand() < 0.1;
    const frames = 1 + Math.floor(rand() * 20);
    const lifetime = Math.floor(rand() * 300);
    socket.on('error', () => {});
    socket.on('close', () => resolve());
    if (neverReads) socket.pause();
    else socket.on('data', () => {});
    socket.on('connect', () => {
      if (flood) socket.write(floodFrames(200, 1024));
      for (let i = 0; i < frames && !socket.destroyed; i++) socket.write(hostileFrame(rand));
      const end = Math.min(lifetime, Math.max(0, deadline - Date.now()));
      setTimeout(() => socket.destroy(), end);
    });
  });
}
