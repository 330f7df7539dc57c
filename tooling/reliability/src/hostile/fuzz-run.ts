/**
 * One fuzzing run against slipstream-server as its own process (JetStream on, a WebSocket
 * listener): protocol cases over TCP and WebSocket and $JS.API / KV / object store requests run
 * side by side until the deadline, while a well-behaved client keeps publishing and pinging.
 * Cases are numbered from `firstSeed`, so the seed of any failure replays it alone.
 */
import { join } from 'node:path';
import {
  connect,
  headers,
  type NatsConnection,
  RequestError,
  TimeoutError,
} from '@slipstream/client';
import { jetstreamManager } from '@slipstream/jetstream';
import { Kvm } from '@slipstream/jetstream/kv';
import { Objm } from '@slipstream/jetstream/objectstore';
import { makeTestCertificates, rssBytes, startSlipstreamServer } from '@slipstream/test-servers';
import { type ApiCase, apiCase, FUZZ_BUCKET, FUZZ_OBJECTS } from './api-cases.js';
import { filesOutsideStore } from './escapes.js';
import { protocolCase } from './protocol-cases.js';
import { type Carrier, openRaw } from './raw-connection.js';
import { startWatchdog, type WatchdogReport } from './watchdog.js';

export interface FuzzRun {
  readonly firstSeed: number;
  readonly protocolCases: Record<Carrier, number>;
  readonly apiCases: number;
  /** Requests our client would not send (an invalid subject, a payload over max_payload). */
  readonly refusedByClient: number;
  /** Seeds of requests that got no reply (timeouts; for $JS.API also no responders or non-JSON). */
  readonly unanswered: readonly number[];
  /** The seed being run when the server exited, if it did. */
  readonly crashSeed?: number;
  readonly exitOutput?: string;
  readonly rssStartMiB: number;
  readonly rssPeakMiB: number;
  readonly rssEndMiB: number;
  readonly outsideStore: readonly string[];
  readonly watchdog: WatchdogReport;
}

const API_TIMEOUT_MS = 5_000;
/** A protocol case's carrier is its seed modulo 4, in this order. */
const CARRIERS: readonly Carrier[] = ['tcp', 'websocket', 'tls', 'tls-handshake'];
const PARALLEL_PROTOCOL = 4;
const PARALLEL_API = 4;

export async function runFuzz(options: {
  durationMs: number;
  firstSeed: number;
  log?: (line: string) => void;
}): Promise<FuzzRun> {
  const log = options.log ?? (() => {});
  const certificates = await makeTestCertificates();
  // TLS on the client port with plain clients served too, so every carrier reaches one server.
  const server = await startSlipstreamServer({
    jetstream: true,
    websocket: true,
    config: `tls { cert_file: "${certificates.certFile}", key_file: "${certificates.keyFile}" }\nallow_non_tls: true`,
  }).catch(async (error) => {
    await certificates.remove();
    throw error;
  });
  const pid = server.process.pid as number;
  const storeDir = join(server.dir, 'js');
  let crashSeed: number | undefined;
  const alive = () => server.process.exitCode === null && server.process.signalCode === null;
  try {
    await prepare(server.url);
    const watchdog = await startWatchdog(server.url);
    const rssStart = rssBytes(pid);
    let rssPeak = rssStart;
    const sampler = setInterval(() => {
      if (alive()) rssPeak = Math.max(rssPeak, rssBytes(pid));
    }, 1_000);
    const deadline = Date.now() + options.durationMs;
    let next = options.firstSeed;
    const take = () => (Date.now() < deadline && alive() ? next++ : undefined);
    const protocolCases: Record<Carrier, number> = {
      tcp: 0,
      websocket: 0,
      tls: 0,
      'tls-handshake': 0,
    };
    const unanswered: number[] = [];
    let apiCases = 0;
    let refusedByClient = 0;

    const protocolWorker = async () => {
      for (let seed = take(); seed !== undefined; seed = take()) {
        const carrier = CARRIERS[seed % CARRIERS.length];
        const port = carrier === 'websocket' ? (server.wsPort as number) : server.port;
        await runProtocolCase(seed, carrier, port);
        protocolCases[carrier]++;
        if (!alive()) crashSeed ??= seed;
      }
    };
    const fuzzClient = await connect({ servers: server.url, name: 'fuzz-api' });
    const apiWorker = async () => {
      for (let seed = take(); seed !== undefined; seed = take()) {
        const outcome = await runApiCase(fuzzClient, apiCase(seed));
        apiCases++;
        if (outcome === 'refused') refusedByClient++;
        else if (outcome !== 'answered') {
          unanswered.push(seed);
          log(`seed ${seed}: ${outcome}`);
        }
        if (!alive()) crashSeed ??= seed;
      }
    };
    await Promise.all([
      ...Array.from({ length: PARALLEL_PROTOCOL }, protocolWorker),
      ...Array.from({ length: PARALLEL_API }, apiWorker),
    ]);
    clearInterval(sampler);
    await fuzzClient.close().catch(() => {});
    const report = await watchdog.stop();
    const rssEnd = alive() ? rssBytes(pid) : 0;
    const mib = (bytes: number) => Math.round(bytes / 2 ** 20);
    return {
      firstSeed: options.firstSeed,
      protocolCases,
      apiCases,
      refusedByClient,
      unanswered,
      crashSeed,
      exitOutput: crashSeed === undefined ? undefined : server.output().slice(-4_000),
      rssStartMiB: mib(rssStart),
      rssPeakMiB: mib(rssPeak),
      rssEndMiB: mib(rssEnd),
      outsideStore: filesOutsideStore(server.dir, storeDir),
      watchdog: report,
    };
  } finally {
    await server.stop();
    await certificates.remove();
  }
}

/** The streams, bucket and object store that valid names in the fuzz refer to. */
async function prepare(url: string): Promise<void> {
  const nc = await connect({ servers: url });
  try {
    const jsm = await jetstreamManager(nc);
    await jsm.streams.add({ name: 'FZ', subjects: ['fz.fixed.>'], storage: 'file' });
    await jsm.streams.add({ name: 'FZ2', subjects: ['fz2.>'], storage: 'memory' });
    await jsm.consumers.add('FZ', { durable_name: 'FZ', ack_policy: 'explicit' });
    await new Kvm(nc).create(FUZZ_BUCKET, { history: 5 });
    await new Objm(nc).create(FUZZ_OBJECTS);
  } finally {
    await nc.close();
  }
}

/** Writes the case's bytes as separate writes, then gives the server a moment to answer or close. */
async function runProtocolCase(seed: number, carrier: Carrier, port: number): Promise<void> {
  const { writes } = protocolCase(seed);
  const connection = await openRaw(carrier, port);
  for (const bytes of writes) {
    if (connection.isClosed()) break;
    connection.write(bytes);
    await new Promise((resolve) => setImmediate(resolve));
  }
  await Promise.race([connection.closed, new Promise((resolve) => setTimeout(resolve, 50))]);
  connection.destroy();
}

type ApiOutcome = 'answered' | 'refused' | 'timeout' | 'no responders' | 'non-JSON reply';

async function runApiCase(nc: NatsConnection, c: ApiCase): Promise<ApiOutcome> {
  let hdrs: ReturnType<typeof headers> | undefined;
  let reply: Awaited<ReturnType<NatsConnection['request']>>;
  try {
    if (c.headers && c.headers.length > 0) {
      hdrs = headers();
      for (const [key, value] of c.headers) hdrs.append(key, value);
    }
    reply = await nc.request(c.subject, c.body, { timeout: API_TIMEOUT_MS, headers: hdrs });
  } catch (error) {
    if (error instanceof TimeoutError || (error as Error).name === 'TimeoutError') return 'timeout';
    if (error instanceof RequestError && error.isNoResponders()) {
      // A KV key or object subject no stream takes has nobody to answer: that is an answer too.
      return c.kind === 'jsapi' ? 'no responders' : 'answered';
    }
    return 'refused';
  }
  if (c.kind !== 'jsapi') return 'answered';
  try {
    const parsed = JSON.parse(new TextDecoder().decode(reply.data)) as unknown;
    return parsed !== null && typeof parsed === 'object' ? 'answered' : 'non-JSON reply';
  } catch {
    return 'non-JSON reply';
  }
}
