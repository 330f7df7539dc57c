/**
 * Counters (nats-server 2.12, ADR-49): a stream with `allow_msg_counter` keeps one integer per
 * subject, of any size, changed by publishing an increment. This is the ADR's counter client
 * (orbit's `NewCounterFromStream`, `Add`, `Get`, `GetMultiple`) in TypeScript:
 * `counterFromStream(js, name)`, then `add(subject, by)` for the new total, `get(subject)` for the
 * entry with its sources, `getMultiple(patterns)` for the entries of every matching subject.
 * nats.js v3 has no counter API; the numbers are BigInts, as the server's are unbounded.
 */
import { headers } from '@slipstream/protocol';
import { JetStreamError } from './errors.js';
import type { JetStreamClient, JetStreamManager } from './jetstream-types.js';

/** The counter headers: the increment published, and what a sourced total came from. */
export const CounterHeaders = {
  Increment: 'Nats-Incr',
  Sources: 'Nats-Counter-Sources',
} as const;

/** A subject's counter as the stream holds it. */
export interface CounterEntry {
  readonly subject: string;
  readonly value: bigint;
  /** For a counter fed by sources: each origin stream's last total, by origin subject. */
  readonly sources: ReadonlyMap<string, ReadonlyMap<string, bigint>>;
  /** The increment of the last change (for a sourced change, what the origin's total moved). */
  readonly increment: bigint | undefined;
}

export interface Counter {
  /** Adds `by` (negative to subtract) to the subject's counter; resolves with the new total. */
  add(subject: string, by: bigint | number): Promise<bigint>;
  /** The subject's counter; throws when the subject has none. */
  get(subject: string): Promise<CounterEntry>;
  /** The counters of every subject matching the patterns (wildcards allowed), each once. */
  getMultiple(subjects: string[]): AsyncIterable<CounterEntry>;
}

/**
 * A counter client on the stream `name`, which must have `allow_msg_counter` (and
 * `allow_direct`, which reads use, as the ADR asks).
 */
export async function counterFromStream(js: JetStreamClient, name: string): Promise<Counter> {
  const jsm = await js.jetstreamManager();
  const { config } = await jsm.streams.info(name);
  if (!config.allow_msg_counter) {
    throw new JetStreamError(`stream '${name}' does not allow message counters`);
  }
  if (!config.allow_direct) throw new JetStreamError(`stream '${name}' does not allow direct gets`);
  return new StreamCounter(js, jsm, name);
}

class StreamCounter implements Counter {
  constructor(
    private readonly js: JetStreamClient,
    private readonly jsm: JetStreamManager,
    private readonly stream: string,
  ) {}

  async add(subject: string, by: bigint | number): Promise<bigint> {
    if (typeof by === 'number' && !Number.isSafeInteger(by)) {
      throw new JetStreamError(`counter increment must be an integer: ${by}`);
    }
    const increment = headers();
    increment.set(CounterHeaders.Increment, String(by));
    // Not with Nats-Expected-Stream: the server refuses an increment beside any expectation.
    const ack = await this.js.publish(subject, '', { headers: increment });
    if (ack.stream !== this.stream) {
      throw new JetStreamError(`subject '${subject}' is stored by stream '${ack.stream}'`);
    }
    if (ack.val === undefined) throw new JetStreamError('the PubAck carries no counter value');
    return BigInt(ack.val);
  }

  async get(subject: string): Promise<CounterEntry> {
    const message = await this.jsm.direct.getMessage(this.stream, { last_by_subj: subject });
    if (!message) throw new JetStreamError(`no counter for subject '${subject}'`);
    const { val } = message.json<{ val?: string }>();
    const recorded = message.header.get(CounterHeaders.Sources);
    const increment = message.header.get(CounterHeaders.Increment);
    return {
      subject: message.subject,
      value: BigInt(val ?? '0'),
      sources: recorded ? sourcesOf(recorded) : new Map(),
      increment: increment ? BigInt(increment) : undefined,
    };
  }

  async *getMultiple(subjects: string[]): AsyncIterable<CounterEntry> {
    const seen = new Set<string>();
    for (const pattern of subjects) {
      const info = await this.jsm.streams.info(this.stream, { subjects_filter: pattern });
      for (const subject of Object.keys(info.state.subjects ?? {}).sort()) {
        if (seen.has(subject)) continue;
        seen.add(subject);
        yield await this.get(subject);
      }
    }
  }
}

function sourcesOf(recorded: string): Map<string, Map<string, bigint>> {
  const parsed = JSON.parse(recorded) as Record<string, Record<string, string>>;
  return new Map(
    Object.entries(parsed).map(([stream, subjects]) => [
      stream,
      new Map(Object.entries(subjects).map(([subject, total]) => [subject, BigInt(total)])),
    ]),
  );
}
