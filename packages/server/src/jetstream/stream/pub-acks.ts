/**
 * The PubAcks of one stream, in nats-server's bytes (`{"stream":"S", "seq":N}`, with its space
 * after the comma), sent on each publish's reply subject once the store says the message is
 * durable, after the synchronous work that stored it (so whoever else receives the publish gets
 * it first). A file store's publishes stored under one durability promise (a commit group) share
 * one callback on it, in store order, rather than a callback each. A memory store's messages are
 * durable once stored, so its PubAcks of one turn share one microtask, where the store's
 * resolved promise would have queued one per publish.
 */
import type { InternalClient } from '../../internal-client.js';

type Ack = string | number | Uint8Array;

interface Batch {
  readonly durable: Promise<void>;
  /** Reply subject, sequence and closing bytes of each publish, in turn. */
  readonly acks: Ack[];
}

const ACK_END = Buffer.from('}');
const DUPLICATE_END = Buffer.from(',"duplicate": true}');

export class PubAcks {
  /** Everything before the sequence, encoded once. */
  #head = new Uint8Array(0);
  #batch: Batch | undefined;
  /** A memory store's PubAcks due after this turn: reply subject, sequence and end of each. */
  readonly #dueAfterTurn: Ack[] = [];

  constructor(
    private readonly client: InternalClient,
    /** The store's messages are durable as soon as they are stored. */
    private readonly durableAtOnce: boolean,
    /** Answers a publish whose message the store could not make durable. */
    private readonly failed: (reply: string) => void,
  ) {}

  /** The stream's name and JetStream domain, which every PubAck names. */
  configure(stream: string, domain: string | undefined): void {
    this.#head = Buffer.from(
      domain
        ? `{"stream":${JSON.stringify(stream)}, "domain":${JSON.stringify(domain)}, "seq":`
        : `{"stream":${JSON.stringify(stream)}, "seq":`,
    );
  }

  /**
   * Acknowledges `seq` on `reply` once `durable`, the store's promise since storing it, resolves.
   * `fields` are JSON members the PubAck carries after the sequence (`,"val":"3"` of a counter).
   */
  whenDurable(durable: Promise<void>, reply: string, seq: number, fields?: string): void {
    const end = fields ? Buffer.from(`${fields}}`) : ACK_END;
    if (this.durableAtOnce) {
      if (this.#dueAfterTurn.length === 0) queueMicrotask(this.#sendDue);
      this.#dueAfterTurn.push(reply, seq, end);
      return;
    }
    let batch = this.#batch;
    if (batch?.durable !== durable) {
      batch = this.#batch = { durable, acks: [] };
      const taken = batch;
      durable.then(
        () => this.#flush(taken, this.#acknowledge),
        () => this.#flush(taken, this.failed),
      );
    }
    batch.acks.push(reply, seq, end);
  }

  /** Answers a publish whose `Nats-Msg-Id` the duplicate window already holds at `seq`. */
  duplicate(reply: string, seq: number): void {
    this.client.respond(reply, this.#ack(seq, DUPLICATE_END));
  }

  readonly #acknowledge = (reply: string, seq: number, end: Uint8Array): void => {
    this.client.respond(reply, this.#ack(seq, end));
  };

  readonly #sendDue = (): void => {
    // An answer may lead to another publish to this stream: the loop takes it too.
    const due = this.#dueAfterTurn;
    for (let i = 0; i < due.length; i += 3) {
      this.#acknowledge(due[i] as string, due[i + 1] as number, due[i + 2] as Uint8Array);
    }
    due.length = 0;
  };

  #flush(batch: Batch, answer: (reply: string, seq: number, end: Uint8Array) => void): void {
    if (this.#batch === batch) this.#batch = undefined;
    const acks = batch.acks;
    for (let i = 0; i < acks.length; i += 3) {
      answer(acks[i] as string, acks[i + 1] as number, acks[i + 2] as Uint8Array);
    }
  }

  /** The head, the sequence's digits, then `end`: written straight into one small buffer. */
  #ack(seq: number, end: Uint8Array): Buffer {
    let digits = 1;
    for (let rest = seq; rest >= 10; rest = Math.floor(rest / 10)) digits++;
    const head = this.#head;
    const ack = Buffer.allocUnsafe(head.length + digits + end.length);
    ack.set(head);
    let rest = seq;
    for (let at = head.length + digits - 1; at >= head.length; at--) {
      ack[at] = 0x30 + (rest % 10);
      rest = Math.floor(rest / 10);
    }
    ack.set(end, head.length + digits);
    return ack;
  }
}
