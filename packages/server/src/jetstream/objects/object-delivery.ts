/**
 * A get's chunks sent to the reader's deliver subject: read from the store one at a time, sent as
 * ordinary messages, and ended by an empty message whose `Nats-Obj-End` header carries the
 * digest. Flow control as JetStream's push consumers do it: after every window of bytes comes an
 * empty `NATS/1.0 100 FlowControl Request` message with a reply subject, and nothing more is sent
 * until the reader answers it (any message). A reader that does not answer within the timeout is
 * given up on. At most one window is ever in flight, so a slow reader costs the server that much.
 */
import { nuid } from '@slipstream/protocol';
import type { InternalClient } from '../../internal-client.js';
import { deadline } from '../../timer-delay.js';
import { statusBlock, withHeaders } from '../shared/header-block.js';
import type { BucketLayout } from './bucket-layout.js';
import type { ObjectRecord } from './object-meta.js';
import type { StreamWriter } from './stream-writer.js';

export const END_HEADER = 'Nats-Obj-End';
/** Bytes sent before the reader must answer a flow control request. */
export const FLOW_CONTROL_WINDOW = 2 * 1024 * 1024;

const FLOW_CONTROL_REQUEST = statusBlock(100, 'FlowControl Request');
const EMPTY = new Uint8Array(0);

export interface DeliveryTarget {
  readonly layout: BucketLayout;
  readonly record: ObjectRecord;
  readonly deliverSubject: string;
}

export class ObjectDelivery {
  #nextSeq = 1;
  #stopped = false;
  /** Stops waiting for the reader's flow control answer. */
  #stopWaiting: (() => void) | undefined;
  readonly #flowControlSubject = `_INBOX.${nuid.next()}`;

  constructor(
    private readonly client: InternalClient,
    private readonly writer: StreamWriter,
    private readonly target: DeliveryTarget,
    /** Milliseconds to wait for the reader's flow control answer. */
    private readonly timeout: number,
    private readonly done: (delivery: ObjectDelivery) => void,
  ) {}

  start(): void {
    setImmediate(() => this.#sendWindow());
  }

  stop(): void {
    this.#stopped = true;
    this.#stopWaiting?.();
  }

  #sendWindow(): void {
    const { layout, record, deliverSubject } = this.target;
    const subject = layout.chunkSubject(record.nonce);
    let sent = 0;
    while (!this.#stopped) {
      const chunk = record.size === 0 ? undefined : this.#loadNext(subject);
      if (!chunk) {
        const end = withHeaders(undefined, [[END_HEADER, record.digest]]);
        this.writer.publish(deliverSubject, EMPTY, { headers: end });
        this.#finish();
        return;
      }
      this.#nextSeq = chunk.seq + 1;
      this.writer.publish(deliverSubject, chunk.payload);
      sent += chunk.payload.length;
      if (sent >= FLOW_CONTROL_WINDOW) {
        this.#awaitFlowControl();
        return;
      }
    }
    this.#finish();
  }

  #awaitFlowControl(): void {
    const reply = this.#flowControlSubject;
    const subscription = this.client.subscribe(reply, () => {
      stopWaiting();
      setImmediate(() => this.#sendWindow());
    });
    const cancelTimer = deadline(this.timeout, () => {
      stopWaiting();
      this.#finish();
    });
    const stopWaiting = () => {
      cancelTimer();
      this.client.unsubscribe(subscription);
      this.#stopWaiting = undefined;
    };
    this.#stopWaiting = stopWaiting;
    this.writer.publish(this.target.deliverSubject, EMPTY, {
      reply,
      headers: FLOW_CONTROL_REQUEST,
    });
  }

  /** The next chunk; a damaged store ends the delivery early, and the reader's digest check fails. */
  #loadNext(subject: string) {
    try {
      return this.target.layout.stream.store.loadNext(subject, this.#nextSeq);
    } catch {
      return undefined;
    }
  }

  #finish(): void {
    this.#stopped = true;
    this.done(this);
  }
}
