import type { NatsConnection } from '@slipstream/client';
import { type JetStreamClient, jetstream, jetstreamManager } from '@slipstream/jetstream';
import { Kvm } from '@slipstream/jetstream/kv';
import type { Ledger } from './ledger.js';
import { ACK_WAIT_MS, CONSUMER, KV_BUCKET, KV_STREAM, STREAMS } from './workload.js';

/** A confirmed write the restarted server no longer has, and how long before the crash it was confirmed. */
export interface Loss {
  /** The confirmed write (with its payload or time, so one sequence reused after a loss is another write). */
  readonly what: string;
  readonly ageMs: number;
}

/** What one check after a restart found. */
export interface Findings {
  /** Streams (and the KV bucket's) whose info failed after the restart. */
  readonly streamsNotOpening: string[];
  readonly lostMessages: Loss[];
  readonly lostKvPuts: Loss[];
  /** Confirmed consumer acks whose message the consumer delivered again. */
  readonly lostAcks: Loss[];
  /** Why the check was incomplete, if it was (the consumer missing, a read that failed...). */
  readonly problems: string[];
}

/**
 * Checks the restarted server against the ledger: every stream opens; every message acknowledged
 * since `since` (or ever, when `since` is 0) is at its sequence with its payload; every key's last
 * acknowledged KV put is there (or a later revision); and draining the consumer (until nothing
 * comes for longer than its ack wait since the restart) delivers no message whose ack was confirmed.
 */
export async function verify(
  nc: NatsConnection,
  ledger: Ledger,
  options: { since: number; crashAt: number; restartedAt: number },
): Promise<Findings> {
  const findings: Findings = {
    streamsNotOpening: [],
    lostMessages: [],
    lostKvPuts: [],
    lostAcks: [],
    problems: [],
  };
  const js = jetstream(nc);
  const jsm = await jetstreamManager(nc);
  const age = (at: number) => options.crashAt - at;
  for (const stream of [...STREAMS, KV_STREAM]) {
    let lastSeq: number;
    try {
      lastSeq = (await jsm.streams.info(stream)).state.last_seq;
    } catch (error) {
      // Every message it ever acknowledged is out of reach: lost, and forgotten by the ledger
      // (the stream is created again, its sequences start over).
      findings.streamsNotOpening.push(`${stream}: ${(error as Error).message}`);
      for (const [seq, { value, at }] of ledger.messages.get(stream) ?? []) {
        findings.lostMessages.push({ what: `${stream}#${seq} ${value}`, ageMs: age(at) });
      }
      ledger.messages.delete(stream);
      if (stream === KV_STREAM) lostAllKv(ledger, findings, age);
      continue;
    }
    const expected = [...(ledger.messages.get(stream) ?? [])].filter(
      ([, { at }]) => at >= options.since,
    );
    if (expected.length === 0) continue;
    const from = expected.reduce((min, [seq]) => Math.min(min, seq), Number.POSITIVE_INFINITY);
    const stored = from <= lastSeq ? await readRange(js, stream, from, lastSeq) : new Map();
    for (const [seq, { value, at }] of expected) {
      if (stored.get(seq) !== value) {
        findings.lostMessages.push({ what: `${stream}#${seq} ${value}`, ageMs: age(at) });
      }
    }
  }
  // (when the bucket's stream did not open, its puts were counted above and forgotten)
  if (ledger.kv.size > 0) await checkKv(js, ledger, options.since, age, findings);
  await drainConsumer(js, ledger, options, findings);
  return findings;
}

/** The stream's payloads from `from` to `to` by sequence, read by an ordered consumer. */
async function readRange(js: JetStreamClient, stream: string, from: number, to: number) {
  const stored = new Map<number, string>();
  const consumer = await js.consumers.get(stream, {
    deliver_policy: 'by_start_sequence',
    opt_start_seq: from,
  });
  const messages = await consumer.consume({ max_messages: 1_000 });
  for await (const m of messages) {
    stored.set(m.seq, m.string());
    if (m.seq >= to) break;
  }
  return stored;
}

/** Fetches and double-acks what the consumer delivers, until it delivers nothing more. */
async function drainConsumer(
  js: JetStreamClient,
  ledger: Ledger,
  options: { crashAt: number; restartedAt: number },
  findings: Findings,
) {
  let consumer: Awaited<ReturnType<JetStreamClient['consumers']['get']>>;
  try {
    consumer = await js.consumers.get('PL_ORDERS', CONSUMER);
  } catch (error) {
    // Its state is gone with it: every ack it confirmed is lost.
    findings.problems.push(`consumer ${CONSUMER}: ${(error as Error).message}`);
    for (const [seq, at] of ledger.acks) {
      findings.lostAcks.push({
        what: `PL_ORDERS#${seq} acked at ${at}`,
        ageMs: options.crashAt - at,
      });
    }
    ledger.acks.clear();
    return;
  }
  const giveUpAt = Date.now() + 60_000;
  for (;;) {
    let delivered = 0;
    const acks: Promise<unknown>[] = [];
    const batch = await consumer.fetch({ max_messages: 1_000, expires: 1_000 });
    for await (const m of batch) {
      delivered++;
      const confirmedAt = ledger.acks.get(m.seq);
      if (confirmedAt !== undefined) {
        findings.lostAcks.push({
          what: `PL_ORDERS#${m.seq} acked at ${confirmedAt}`,
          ageMs: options.crashAt - confirmedAt,
        });
      }
      acks.push(m.ackAck({ timeout: 5_000 }).then((ok) => ok && ledger.ack(m.seq)));
    }
    await Promise.all(acks);
    if (delivered === 0 && Date.now() - options.restartedAt > ACK_WAIT_MS + 1_000) return;
    if (Date.now() > giveUpAt) {
      findings.problems.push('the consumer still delivered after 60 s of draining');
      return;
    }
  }
}

function lostAllKv(ledger: Ledger, findings: Findings, age: (at: number) => number) {
  for (const [key, put] of ledger.kv)
    findings.lostKvPuts.push({ what: `${key}@${put.revision} ${put.value}`, ageMs: age(put.at) });
  ledger.kv.clear();
}

/** Every key's last acknowledged put is there, or a later revision. */
async function checkKv(
  js: JetStreamClient,
  ledger: Ledger,
  since: number,
  age: (at: number) => number,
  findings: Findings,
) {
  try {
    const kv = await new Kvm(js).open(KV_BUCKET);
    for (const [key, put] of ledger.kv) {
      if (put.at < since) continue;
      const entry = await kv.get(key);
      const kept =
        entry !== null &&
        (entry.revision > put.revision ||
          (entry.revision === put.revision && entry.string() === put.value));
      if (!kept)
        findings.lostKvPuts.push({
          what: `${key}@${put.revision} ${put.value}`,
          ageMs: age(put.at),
        });
    }
  } catch (error) {
    findings.problems.push(`KV check: ${(error as Error).message}`);
  }
}
