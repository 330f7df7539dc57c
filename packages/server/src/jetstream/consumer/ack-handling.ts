/**
 * What a consumer does with a message on its ack subject `$JS.ACK.<stream>.<consumer>.…`: ack,
 * TERM, +NXT (an ack and a pull request), NAK (at once, or after a delay) and +WPI (the ack wait
 * starts again), by its ack policy; and the confirmation a double ack waits for, sent once the
 * state the ack changed is on disk.
 */
import type { ConsumerConfig } from '@slipstream/jsapi';
import type { InternalClient, InternalMessage } from '../../internal-client.js';
import type { Stream } from '../stream/stream.js';
import { type AckedDelivery, ackedDelivery, ackVerb } from './acks.js';
import { sampleFrequency } from './consumer-config.js';
import type { ConsumerEvents } from './consumer-events.js';
import type { DeliveryState } from './consumer-state.js';
import type { ConsumerStateSaver } from './consumer-state-saver.js';
import { ackWaitMs, type RedeliveryTimer } from './redelivery.js';
import type { Signal } from './signal.js';

const EMPTY = new Uint8Array(0);
const NANOS_PER_MS = 1_000_000;

/** The consumer's parts an ack changes or tells. */
export interface AckedConsumer {
  readonly stream: Stream;
  readonly client: InternalClient;
  readonly state: DeliveryState;
  readonly events: ConsumerEvents;
  readonly saver: ConsumerStateSaver;
  readonly redelivery: RedeliveryTimer;
  readonly signal: Signal;
  /** The stream's retention learns which messages were acknowledged. */
  acked(seqs: number[]): void;
  /** +NXT: the rest of the ack body is a pull request. */
  pullRequest(reply: string | undefined, body: Uint8Array): void;
}

export class AckHandling {
  #config: ConsumerConfig;
  #closed = false;
  /** The last ack, ms since the epoch (0: never): only the info reads it. */
  lastAckedMs = 0;

  constructor(
    private readonly consumer: AckedConsumer,
    config: ConsumerConfig,
  ) {
    this.#config = config;
  }

  /** The consumer's config changed (an update). */
  configure(config: ConsumerConfig): void {
    this.#config = config;
  }

  /** The consumer stopped: acks arriving after are ignored. */
  close(): void {
    this.#closed = true;
  }

  received(message: InternalMessage): void {
    if (this.#closed) return;
    const acked = ackedDelivery(message.subject);
    const verb = ackVerb(message.payload);
    let confirm = message.reply;
    switch (verb?.kind) {
      case 'ack':
        this.#ack(acked, true);
        break;
      case 'term':
        this.#ack(acked, false);
        this.consumer.events.terminated(acked.consumerSeq, acked.streamSeq, acked.delivered);
        break;
      case 'next':
        this.#ack(acked, true);
        this.consumer.pullRequest(message.reply, message.payload.subarray(4));
        confirm = undefined;
        break;
      case 'nak':
        this.#nak(acked, verb.delayNanos);
        break;
      case 'progress':
        this.#progress(acked.streamSeq);
        break;
    }
    if (!confirm) return;
    // The confirmation (double ack) leaves only once the ack's state is on disk.
    this.consumer.saver.now();
    const reply = confirm;
    const client = this.consumer.client;
    this.consumer.stream.store.whenDurable().then(
      () => client.publish(reply, EMPTY),
      () => {},
    );
  }

  /** An ack (or a TERM) of a delivery; `sampled` acks may feed the ack metric. */
  #ack({ streamSeq: seq, consumerSeq: dseq, delivered }: AckedDelivery, sampled: boolean): void {
    const state = this.consumer.state;
    let from: number;
    switch (this.#config.ack_policy) {
      case 'explicit': {
        const pending = state.pending.get(seq);
        if (pending && sampled && this.#sampled()) {
          const ackTime = (Date.now() - pending.time) * NANOS_PER_MS;
          this.consumer.events.acked(dseq, seq, delivered, ackTime);
        }
        from = state.ackOne(seq) ? seq : 0;
        break;
      }
      case 'all':
        from = state.ackUpTo(seq, dseq);
        break;
      default:
        return;
    }
    if (from === 0) return;
    this.lastAckedMs = Date.now();
    this.consumer.saver.later();
    if (this.consumer.stream.config.retention !== 'limits') {
      const acked: number[] = [];
      for (let s = from; s <= seq; s++) acked.push(s);
      this.consumer.acked(acked);
    }
    this.consumer.signal.raise();
  }

  /** Whether this ack is one of the sample_freq percent reported as a metric. */
  #sampled(): boolean {
    const frequency = sampleFrequency(this.#config);
    return frequency >= 100 || (frequency > 0 && Math.random() * 100 < frequency);
  }

  #nak(
    { streamSeq: seq, consumerSeq: dseq, delivered }: AckedDelivery,
    delayNanos: number | undefined,
  ): void {
    const state = this.consumer.state;
    if (dseq <= state.ackFloor.consumer || dseq >= state.nextDeliverySeq) return;
    const pending = state.pending.get(seq);
    if (state.pending.size > 0 && !pending) return;
    this.consumer.events.naked(dseq, seq, delivered);
    if (delayNanos !== undefined && pending) {
      state.redeliverQueue.delete(seq);
      pending.due = Date.now() + delayNanos / NANOS_PER_MS;
      this.consumer.redelivery.schedule(seq, pending.due);
      return;
    }
    state.redeliverQueue.add(seq);
    this.consumer.signal.raise();
  }

  /** +WPI: the ack wait starts again. */
  #progress(seq: number): void {
    const state = this.consumer.state;
    const pending = state.pending.get(seq);
    if (!pending) return;
    const now = Date.now();
    pending.time = now;
    pending.due = now + ackWaitMs(this.#config, state.deliveries(seq));
    this.consumer.redelivery.schedule(seq, pending.due);
    this.consumer.saver.later();
  }
}
