/**
 * When unacknowledged messages are due again, with one timer for the earliest, so a consumer
 * with thousands of messages out holds one timer. Deadlines usually come in due order (one
 * ack_wait after each delivery): those queue in two plain number arrays, no object each; one
 * that comes earlier than the last queued (a backoff step, a NAK delay) goes to a min-heap.
 * Entries are not removed on an ack: a stale one stays behind, and the consumer tells stale
 * from live when it fires. So that a fast consume acking everything does not keep ack_wait's
 * worth of stale deadlines, once they outnumber the pending deliveries by far the queue is
 * rebuilt from those.
 */

import type { ConsumerConfig } from '@slipstream/jsapi';
import { timerDelay } from '../../timer-delay.js';
import { DueHeap } from '../shared/due-heap.js';
import type { DeliveryState } from './consumer-state.js';

const NANOS_PER_MS = 1_000_000;

/** Stale entries tolerated beyond twice the pending deliveries before a rebuild. */
const REBUILD_SLACK = 1024;

export class RedeliveryTimer {
  /** In-order deadlines from `#head` on: sequence and due time side by side. */
  #seqs: number[] = [];
  #dues: number[] = [];
  #head = 0;
  readonly #heap = new DueHeap<number>();
  #timer: NodeJS.Timeout | undefined;
  #timerDue = Number.POSITIVE_INFINITY;

  constructor(
    /** Called with the sequences whose time came; it filters stale ones. */
    private readonly fire: (seqs: number[]) => void,
    /** The deliveries still pending, by stream sequence, with when each is due. */
    private readonly pending: () => ReadonlyMap<number, { readonly due: number }>,
  ) {}

  /** Redeliver `seq` at `due` (milliseconds since the epoch) unless acked by then. */
  schedule(seq: number, due: number): void {
    const last = this.#dues.length - 1;
    if (last < this.#head || due >= this.#dues[last]!) {
      this.#seqs.push(seq);
      this.#dues.push(due);
    } else {
      this.#heap.push(seq, due);
    }
    if (this.#size() > 2 * this.pending().size + REBUILD_SLACK) this.#rebuild();
    if (due < this.#timerDue) this.#arm(due);
  }

  clear(): void {
    this.#empty();
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#timerDue = Number.POSITIVE_INFINITY;
  }

  #size(): number {
    return this.#dues.length - this.#head + this.#heap.size;
  }

  #empty(): void {
    this.#seqs = [];
    this.#dues = [];
    this.#head = 0;
    this.#heap.clear();
  }

  /** Only the pending deliveries' deadlines, in due order. */
  #rebuild(): void {
    const live = [...this.pending()].sort((a, b) => a[1].due - b[1].due);
    this.#empty();
    for (const [seq, { due }] of live) {
      this.#seqs.push(seq);
      this.#dues.push(due);
    }
  }

  #nextDue(): number | undefined {
    const queued = this.#head < this.#dues.length ? this.#dues[this.#head]! : undefined;
    const heaped = this.#heap.nextDue;
    if (queued === undefined) return heaped;
    return heaped === undefined || queued <= heaped ? queued : heaped;
  }

  #arm(due: number): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timerDue = due;
    // a deadline beyond setTimeout's reach fires early, finds nothing due and arms again
    this.#timer = setTimeout(() => this.#expire(), timerDelay(due - Date.now()));
    this.#timer.unref?.();
  }

  #expire(): void {
    this.#timer = undefined;
    this.#timerDue = Number.POSITIVE_INFINITY;
    const now = Date.now();
    const due = this.#heap.takeDue(now);
    while (this.#head < this.#dues.length && this.#dues[this.#head]! <= now) {
      due.push(this.#seqs[this.#head++]!);
    }
    if (this.#head > this.#dues.length / 2) {
      this.#seqs = this.#seqs.slice(this.#head);
      this.#dues = this.#dues.slice(this.#head);
      this.#head = 0;
    }
    const next = this.#nextDue();
    if (next !== undefined) this.#arm(next);
    if (due.length > 0) this.fire(due);
  }
}

/** How long the given delivery waits for its ack: its backoff step, else ack_wait. */
export function ackWaitMs(config: ConsumerConfig, deliveries: number): number {
  const backoff = config.backoff;
  const waitNanos = backoff?.length
    ? backoff[Math.min(deliveries - 1, backoff.length - 1)]!
    : config.ack_wait!;
  return waitNanos / NANOS_PER_MS;
}

/**
 * An update's new ack_wait moves the deadlines of what is out already (under the new backoff
 * too), as nats-server measures each wait from the delivery (or the NAK delay's start) when it
 * checks, and checks at once on a new ack_wait (updateConfig). A new backoff alone applies
 * from each delivery's next deadline on, as there: nothing is re-checked.
 */
export function moveDeadlines(
  state: DeliveryState,
  before: ConsumerConfig,
  after: ConsumerConfig,
  timer: RedeliveryTimer,
): void {
  if (before.ack_wait === after.ack_wait) return;
  for (const [seq, pending] of state.pending) {
    const deliveries = state.deliveries(seq);
    const shift = ackWaitMs(after, deliveries) - ackWaitMs(before, deliveries);
    if (shift === 0) continue;
    pending.due += shift;
    timer.schedule(seq, pending.due);
  }
}
