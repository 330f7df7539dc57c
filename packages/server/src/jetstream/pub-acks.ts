/**
 * The PubAcks of one stream, in nats-server's bytes (`{"stream":"S", "seq":N}`, with its space
 * after the comma), sent on each publish's reply subject once the store says the message is
 * durable. The publishes stored under one durability promise (a commit group, or one turn of a
 * memory store) share a single callback on it, in store order, rather than a callback each.
 */
import type { InternalClient } from '../internal-client.js';

interface Batch {
  readonly durable: Promise<void>;
  /** Reply subject and sequence of each publish, in turn. */
  readonly acks: (string | number)[];
}

export class PubAcks {
  #head = '';
  #batch: Batch | undefined;

  constructor(
    private readonly client: InternalClient,
    /** Answers a publish whose message the store could not make durable. */
    private readonly failed: (reply: string) => void,
  ) {}

  /** The stream's name and JetStream domain, which every PubAck names. */
  configure(stream: string, domain: string | undefined): void {
    this.#head = domain
      ? `{"stream":${JSON.stringify(stream)}, "domain":${JSON.stringify(domain)}, "seq":`
      : `{"stream":${JSON.stringify(stream)}, "seq":`;
  }

  /** Acknowledges `seq` on `reply` once `durable`, the store's promise since storing it, resolves. */
  whenDurable(durable: Promise<void>, reply: string, seq: number): void {
    let batch = this.#batch;
    if (batch?.durable !== durable) {
      batch = this.#batch = { durable, acks: [] };
      const taken = batch;
      durable.then(
        () => this.#flush(taken, (reply, seq) => this.#send(reply, `${this.#head}${seq}}`)),
        () => this.#flush(taken, (reply) => this.failed(reply)),
      );
    }
    batch.acks.push(reply, seq);
  }

  /** Answers a publish whose `Nats-Msg-Id` the duplicate window already holds at `seq`. */
  duplicate(reply: string, seq: number): void {
    this.#send(reply, `${this.#head}${seq},"duplicate": true}`);
  }

  #flush(batch: Batch, answer: (reply: string, seq: number) => void): void {
    if (this.#batch === batch) this.#batch = undefined;
    const acks = batch.acks;
    for (let i = 0; i < acks.length; i += 2) answer(acks[i] as string, acks[i + 1] as number);
  }

  #send(reply: string, json: string): void {
    this.client.respond(reply, Buffer.from(json));
  }
}
