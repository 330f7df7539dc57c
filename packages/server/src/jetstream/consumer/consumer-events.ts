/**
 * The advisories and metrics of one consumer, in nats-server's shapes: created and deleted, a
 * message out of deliveries, a NAK, a TERM, sampled ack times (2.9.10), and 2.11's pause and
 * priority group pins. Each is built only when someone listens (Advisories).
 */
import type { Advisories } from '../advisories.js';
import { wireTime } from '../shared/wire-time.js';

export class ConsumerEvents {
  constructor(
    private readonly advisories: Advisories,
    private readonly stream: string,
    private readonly consumer: string,
  ) {}

  created(): void {
    this.#action('consumerCreated', 'create');
  }

  deleted(): void {
    this.#action('consumerDeleted', 'delete');
  }

  /**
   * The pause changed or ended: `paused` says whether it holds now, `pause_until` is the
   * deadline (Go's zero time when there is none), as sendPauseAdvisoryLocked (2.11
   * consumer.go:1690) writes them.
   */
  paused(deadline: bigint, paused: boolean): void {
    const { stream, consumer } = this;
    this.advisories.consumerEvent('consumerPause', stream, consumer, () => ({
      stream,
      consumer,
      paused,
      pause_until: wireTime(deadline),
    }));
  }

  /** A pinned_client group got a new pin (2.11 consumer.go:1631), naming the account too. */
  pinned(group: string, pinnedId: string): void {
    const { stream, consumer } = this;
    this.advisories.consumerEvent('consumerPinned', stream, consumer, () => ({
      account: this.advisories.account,
      stream,
      consumer,
      group,
      pinned_id: pinnedId,
    }));
  }

  /**
   * A pinned_client group lost its pin: "admin" (CONSUMER.UNPIN) or "timeout" (2.11
   * consumer.go:1650), naming the account too.
   */
  unpinned(group: string, reason: string): void {
    const { stream, consumer } = this;
    this.advisories.consumerEvent('consumerUnpinned', stream, consumer, () => ({
      account: this.advisories.account,
      stream,
      consumer,
      group,
      reason,
    }));
  }

  /** `seq` was delivered `deliveries` times, max_deliver, and will not be again. */
  maxDeliveries(seq: number, deliveries: number): void {
    const { stream, consumer } = this;
    this.advisories.consumerEvent('maxDeliveries', stream, consumer, () => ({
      stream,
      consumer,
      stream_seq: seq,
      deliveries,
    }));
  }

  naked(consumerSeq: number, streamSeq: number, deliveries: number): void {
    this.#delivery('msgNaked', consumerSeq, streamSeq, deliveries);
  }

  terminated(consumerSeq: number, streamSeq: number, deliveries: number): void {
    this.#delivery('msgTerminated', consumerSeq, streamSeq, deliveries);
  }

  /** An ack `ackTimeNanos` after the delivery, for consumers with a sample_freq. */
  acked(consumerSeq: number, streamSeq: number, deliveries: number, ackTimeNanos: number): void {
    const { stream, consumer } = this;
    this.advisories.consumerEvent('consumerAck', stream, consumer, () => ({
      stream,
      consumer,
      consumer_seq: consumerSeq,
      stream_seq: streamSeq,
      ack_time: ackTimeNanos,
      deliveries,
    }));
  }

  #action(name: 'consumerCreated' | 'consumerDeleted', action: 'create' | 'delete'): void {
    const { stream, consumer } = this;
    this.advisories.consumerEvent(name, stream, consumer, () => ({ stream, consumer, action }));
  }

  #delivery(
    name: 'msgNaked' | 'msgTerminated',
    consumerSeq: number,
    streamSeq: number,
    deliveries: number,
  ): void {
    const { stream, consumer } = this;
    this.advisories.consumerEvent(name, stream, consumer, () => ({
      stream,
      consumer,
      consumer_seq: consumerSeq,
      stream_seq: streamSeq,
      deliveries,
    }));
  }
}
