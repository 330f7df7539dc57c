/**
 * A PubAck leaves only after the write that stored its message is synced to disk (issue #9's
 * sync-before-ack rule, the default `sync_interval: always`). slipstream-server runs under
 * strace; a client publishes one message at a time, waiting for each PubAck; the trace must
 * never show a PubAck written to a socket while the SQLite WAL holds writes not yet synced.
 * The same run with `sync_interval` set to a duration (lazy, nats-server's default behaviour)
 * must show such acks (nearly all of them), or the test could not tell the modes apart. A
 * double ack's confirmation (issue #10) follows the same rule: it leaves only once the ack, and
 * the consumer state written lazily before it, is synced.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, createInbox, type NatsConnection } from '@nats-io/transport-node';
import {
  requireSystemComponent,
  runProcess,
  slipstreamServerBin,
  startServerProcess,
} from '@slipstream/test-servers';
import { describe, expect, it } from 'vitest';

const messages = 40;

interface SyncReport {
  acks: number;
  acksBeforeSync: number;
  syncs: number;
}

/**
 * Walks the trace in order. Requests go one at a time, so each answer (a socket write holding
 * `answer`) must follow its own WAL write and a sync of it: an answer with no synced write since
 * the previous one, or with a write still unsynced, left before what it confirms was on disk.
 */
function readTrace(trace: string, answer: string): SyncReport {
  let unsynced = false;
  let syncedSinceAck = false;
  const report: SyncReport = { acks: 0, acksBeforeSync: 0, syncs: 0 };
  for (const line of trace.split('\n')) {
    const call = /^(?:\[pid\s+\d+\]\s+|\d+\s+)?(\w+)\((\d+)<([^>]*)>/.exec(line);
    if (!call) continue;
    const [, name, , path] = call;
    if ((name === 'pwrite64' || name === 'write') && path!.endsWith('-wal')) unsynced = true;
    else if (name === 'fsync' || name === 'fdatasync') {
      report.syncs++;
      if (unsynced) syncedSinceAck = true;
      unsynced = false;
    } else if (
      /^(write|writev|sendto|sendmsg)$/.test(name!) &&
      path!.startsWith('TCP') &&
      line.includes(answer)
    ) {
      report.acks++;
      if (unsynced || !syncedSinceAck) report.acksBeforeSync++;
      syncedSinceAck = false;
    }
  }
  return report;
}

/** Runs `requests` against slipstream-server under strace; the report counts `answer`s. */
async function underStrace(
  syncInterval: string,
  answer: string,
  requests: (nc: NatsConnection) => Promise<void>,
): Promise<SyncReport> {
  const strace = requireSystemComponent('strace');
  const dir = await mkdtemp(join(tmpdir(), 'slipstream-sync-'));
  const traceFile = join(dir, 'trace.txt');
  const config = join(dir, 'server.conf');
  await writeFile(
    config,
    `jetstream { store_dir: "${join(dir, 'store')}", sync_interval: ${syncInterval} }\n`,
  );
  const server = await startServerProcess(process.execPath, (port) => [
    slipstreamServerBin,
    '-a',
    '127.0.0.1',
    '-p',
    String(port),
    '-c',
    config,
  ]);
  // Attached to the running server rather than starting it, so that stopping the server
  // also ends strace.
  const tracer = runProcess(strace, [
    '-f',
    '-yy',
    '-s',
    '256',
    '-e',
    'trace=pwrite64,write,writev,sendto,sendmsg,fsync,fdatasync',
    '-o',
    traceFile,
    '-p',
    String(server.child.pid),
  ]);
  while (!/attached/.test(tracer.output())) {
    if (tracer.child.exitCode !== null) throw new Error(`strace failed: ${tracer.output()}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  try {
    const nc = await connect({ servers: server.url });
    await requests(nc);
    await nc.close();
    await server.stop();
    await tracer.exit;
    return readTrace(await readFile(traceFile, 'utf8'), answer);
  } finally {
    await server.stop();
    await tracer.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

/** A JetStream API request; its answer, which must hold no error. */
async function request(nc: NatsConnection, subject: string, body: unknown) {
  const answer = JSON.parse(
    (await nc.request(subject, JSON.stringify(body), { timeout: 10_000 })).string(),
  );
  expect(answer.error).toBeUndefined();
  return answer;
}

/** Stores the test's messages, one at a time, each waiting for its PubAck. */
async function publish(nc: NatsConnection): Promise<void> {
  await request(nc, '$JS.API.STREAM.CREATE.SYNC', {
    name: 'SYNC',
    subjects: ['sync.>'],
    storage: 'file',
  });
  for (let i = 0; i < messages; i++) {
    const ack = JSON.parse((await nc.request('sync.a', `m${i}`, { timeout: 10_000 })).string());
    expect(ack.seq).toBe(i + 1);
  }
}

const publishUnderStrace = (syncInterval: string) =>
  underStrace(syncInterval, '\\"seq\\":', publish);

/**
 * Pulls the messages and acks them in turn: a plain +ACK (written lazily), then one with a
 * reply (a double ack, +ACK or +TERM), whose confirmation the test waits for.
 */
async function doubleAck(nc: NatsConnection): Promise<void> {
  await publish(nc);
  await request(nc, '$JS.API.CONSUMER.DURABLE.CREATE.SYNC.D', {
    stream_name: 'SYNC',
    config: { durable_name: 'D', ack_policy: 'explicit' },
  });
  const inbox = createInbox();
  const delivered = nc.subscribe(inbox, { max: messages });
  nc.publish('$JS.API.CONSUMER.MSG.NEXT.SYNC.D', JSON.stringify({ batch: messages }), {
    reply: inbox,
  });
  let i = 0;
  for await (const m of delivered) {
    if (i++ % 2 === 0) {
      m.respond('+ACK');
      continue;
    }
    const confirm = `CONFIRM.${i}`;
    const confirmation = nc.subscribe(confirm, { max: 1 });
    nc.publish(m.reply!, i % 4 === 0 ? '+TERM' : '+ACK', { reply: confirm });
    for await (const _ of confirmation);
  }
}

describe('JetStream syncs before it acknowledges', () => {
  it('never sends a PubAck while the WAL holds unsynced writes (sync_interval: always)', async () => {
    const report = await publishUnderStrace('always');
    console.log(`sync always: ${JSON.stringify(report)}`);
    expect(report.acks).toBe(messages);
    expect(report.syncs).toBeGreaterThanOrEqual(messages);
    expect(report.acksBeforeSync).toBe(0);
  }, 60_000);

  it('does send PubAcks before the sync in lazy mode (sync_interval: 2m), as the check can tell', async () => {
    const report = await publishUnderStrace('"2m"');
    console.log(`sync lazy: ${JSON.stringify(report)}`);
    expect(report.acks).toBe(messages);
    // Lazy mode also syncs the WAL in the background every few dozen commits (so that SQLite's
    // checkpoint has little left to sync on the event loop): an ack may happen to follow one.
    expect(report.acksBeforeSync).toBeGreaterThanOrEqual(messages * 0.9);
  }, 60_000);

  it('never confirms a double ack before its consumer state is synced (sync_interval: always)', async () => {
    const report = await underStrace('always', 'MSG CONFIRM.', doubleAck);
    console.log(`double acks, sync always: ${JSON.stringify(report)}`);
    expect(report.acks).toBe(messages / 2);
    expect(report.acksBeforeSync).toBe(0);
  }, 60_000);
});
