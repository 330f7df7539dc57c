/** A write the server confirmed, and when (ms since the epoch), to measure how old a loss is. */
export interface Confirmed {
  readonly value: string;
  readonly at: number;
}

/**
 * What the server confirmed over all cycles of one target: the acknowledged messages of each
 * stream by sequence, the last acknowledged KV put of each key, and the consumer acks it
 * confirmed (double acks) by stream sequence. A later cycle may confirm a sequence again (after
 * a server lost the earlier one and reused it): the latest confirmation stands.
 */
export class Ledger {
  readonly messages = new Map<string, Map<number, Confirmed>>();
  readonly kv = new Map<string, Confirmed & { readonly revision: number }>();
  readonly acks = new Map<number, number>();
  /** Every confirmation counted once, including those later superseded. */
  messageCount = 0;
  kvCount = 0;
  ackCount = 0;

  message(stream: string, seq: number, value: string): void {
    let bySeq = this.messages.get(stream);
    if (bySeq === undefined) this.messages.set(stream, (bySeq = new Map()));
    bySeq.set(seq, { value, at: Date.now() });
    this.messageCount++;
  }

  kvPut(key: string, revision: number, value: string): void {
    this.kv.set(key, { revision, value, at: Date.now() });
    this.kvCount++;
  }

  ack(seq: number): void {
    this.acks.set(seq, Date.now());
    this.ackCount++;
  }
}
