/**
 * A consumer's position and what it has out: the next stream and delivery sequences, the ack
 * floor, the messages delivered and not yet acked (by stream sequence, in delivery order,
 * which is ascending), how often each was redelivered, and the queue of those due again.
 * This is what nats-server's ConsumerState holds, and what the stream's store keeps.
 */

export interface PendingDelivery {
  /** The consumer sequence of its first delivery. */
  readonly dseq: number;
  /** When it was last delivered (or marked in progress), ms since the epoch. */
  time: number;
  /** When it is due for redelivery, ms since the epoch. */
  due: number;
}

export interface SequencePair {
  consumer: number;
  stream: number;
}

interface EncodedState {
  /** Last delivered: [consumer seq, stream seq]. */
  d: [number, number];
  /** Ack floor: [consumer seq, stream seq]. */
  a: [number, number];
  /** Pending: [stream seq, consumer seq, time ms]. */
  p: [number, number, number][];
  /** Redelivered: [stream seq, count]. */
  r: [number, number][];
}

/** Sequences above the ack floor looked up one by one for the oldest pending message. */
const FLOOR_PROBES = 16;

export class DeliveryState {
  /** The next stream sequence to look at for a first delivery. */
  nextStreamSeq = 1;
  /** The consumer sequence the next delivery gets. */
  nextDeliverySeq = 1;
  readonly ackFloor: SequencePair = { consumer: 0, stream: 0 };
  readonly pending = new Map<number, PendingDelivery>();
  /** How many times each pending message was delivered again. */
  readonly redelivered = new Map<number, number>();
  /** Pending messages due again, in the order they will go. */
  readonly redeliverQueue = new Set<number>();

  /** Starts a new consumer at `seq`; the ack floor rises from 0 with the acks, as in nats-server. */
  startAt(seq: number): void {
    this.nextStreamSeq = seq;
  }

  /**
   * Starts over at `seq` as a new consumer would, except for the ack floor's stream sequence,
   * just below it (CONSUMER.RESET, resetLocalStartingSeq, v2.14.2 consumer.go:2877-2884).
   */
  resetTo(seq: number): void {
    this.pending.clear();
    this.redelivered.clear();
    this.redeliverQueue.clear();
    this.nextStreamSeq = seq;
    this.nextDeliverySeq = 1;
    this.ackFloor.consumer = 0;
    this.ackFloor.stream = seq - 1;
  }

  /**
   * The stream sequence a reset to the ack floor starts above: nats-server's ack store floor,
   * which begins just below the consumer's first message (selectStartingSeqNo) where the info's
   * ack floor begins at 0, and follows the deliveries of a consumer that takes no acks.
   */
  get resetFloor(): number {
    if (this.ackFloor.stream > 0 || this.ackFloor.consumer > 0) return this.ackFloor.stream;
    let oldest = this.nextStreamSeq;
    for (const seq of this.pending.keys()) oldest = Math.min(oldest, seq);
    return oldest - 1;
  }

  /** Deliveries of `seq` so far, counting the first. */
  deliveries(seq: number): number {
    return (this.redelivered.get(seq) ?? 0) + 1;
  }

  /** Records a delivery that expects an ack. */
  track(seq: number, dseq: number, now: number, due: number): void {
    const pending = this.pending.get(seq);
    if (pending) {
      pending.time = now;
      pending.due = due;
    } else {
      this.pending.set(seq, { dseq, time: now, due });
    }
  }

  /** Counts a redelivery of `seq` and takes it off the redeliver queue. */
  redeliver(seq: number): void {
    this.redeliverQueue.delete(seq);
    this.redelivered.set(seq, (this.redelivered.get(seq) ?? 0) + 1);
  }

  /** Stops tracking `seq` (acked, terminated, gone from the stream, out of deliveries). */
  forget(seq: number, keepCount = false): void {
    this.pending.delete(seq);
    this.redeliverQueue.delete(seq);
    if (!keepCount) this.redelivered.delete(seq);
  }

  /** An explicit ack; false when the message was not pending. */
  ackOne(seq: number): boolean {
    if (!this.pending.has(seq)) return false;
    this.forget(seq);
    this.#raiseFloor();
    return true;
  }

  /**
   * An ack of everything up to `seq` (ack policy all); returns the first stream sequence it
   * acknowledged (the rest up to `seq` with it), or 0 when it was at or below the floor, or
   * names a delivery not made yet (anyone may publish an ack subject).
   */
  ackUpTo(seq: number, dseq: number): number {
    if (dseq <= this.ackFloor.consumer || seq <= this.ackFloor.stream) return 0;
    if (dseq >= this.nextDeliverySeq || seq >= this.nextStreamSeq) return 0;
    const from = this.ackFloor.stream + 1;
    // Deleting the entry being visited is safe in a Map's own iteration: no copy of every key.
    for (const pendingSeq of this.pending.keys()) {
      if (pendingSeq > seq) break;
      this.forget(pendingSeq);
    }
    this.ackFloor.consumer = dseq;
    this.ackFloor.stream = seq;
    return from;
  }

  /**
   * The redelivery timer fired for `seqs`: those still pending, due by `now` and not queued yet
   * go on the redeliver queue. True when any did.
   */
  queueDue(seqs: number[], now: number): boolean {
    let queued = false;
    for (const seq of seqs.sort((a, b) => a - b)) {
      const pending = this.pending.get(seq);
      if (!pending || pending.due > now || this.redeliverQueue.has(seq)) continue;
      this.redeliverQueue.add(seq);
      queued = true;
    }
    return queued;
  }

  /** Every pending delivery goes out again (the deliver subject changed). */
  queueAllPending(): void {
    for (const seq of this.pending.keys()) this.redeliverQueue.add(seq);
  }

  /** A delivery that needs no ack (ack policy none) moves the floor with it. */
  deliveredWithoutAck(seq: number, dseq: number): void {
    this.ackFloor.consumer = dseq;
    this.ackFloor.stream = seq;
  }

  /** The floor sits just below the oldest pending message, or at the last delivery. */
  #raiseFloor(): void {
    if (this.pending.size === 0) {
      this.ackFloor.consumer = this.nextDeliverySeq - 1;
      this.ackFloor.stream = this.nextStreamSeq - 1;
      return;
    }
    const [seq, pending] = this.#oldestPending();
    this.ackFloor.consumer = Math.max(this.ackFloor.consumer, pending.dseq - 1);
    this.ackFloor.stream = Math.max(this.ackFloor.stream, seq - 1);
  }

  /**
   * The pending message with the lowest sequence, all of them above the floor. Usually one of
   * the next few sequences (acks come in about the order of delivery): looked up by number
   * first, as iterating the map passes over every entry deleted since its last rehash, some
   * hundreds in a steady consume.
   */
  #oldestPending(): [number, PendingDelivery] {
    const end = Math.min(this.nextStreamSeq, this.ackFloor.stream + 1 + FLOOR_PROBES);
    for (let seq = this.ackFloor.stream + 1; seq < end; seq++) {
      const pending = this.pending.get(seq);
      if (pending) return [seq, pending];
    }
    return this.pending.entries().next().value!;
  }

  encode(): string {
    const state: EncodedState = {
      d: [this.nextDeliverySeq - 1, this.nextStreamSeq - 1],
      a: [this.ackFloor.consumer, this.ackFloor.stream],
      p: [...this.pending].map(([seq, p]) => [seq, p.dseq, p.time]),
      r: [...this.redelivered],
    };
    return JSON.stringify(state);
  }

  /** Restores a saved state; `dueOf` says when each pending message is due again. */
  static decode(
    text: string,
    dueOf: (seq: number, time: number, deliveries: number) => number,
  ): DeliveryState {
    const saved = JSON.parse(text) as EncodedState;
    const state = new DeliveryState();
    state.nextDeliverySeq = saved.d[0] + 1;
    state.nextStreamSeq = saved.d[1] + 1;
    state.ackFloor.consumer = saved.a[0];
    state.ackFloor.stream = saved.a[1];
    for (const [seq, count] of saved.r) state.redelivered.set(seq, count);
    for (const [seq, dseq, time] of saved.p.sort((x, y) => x[0] - y[0])) {
      state.pending.set(seq, { dseq, time, due: dueOf(seq, time, state.deliveries(seq)) });
    }
    return state;
  }
}
