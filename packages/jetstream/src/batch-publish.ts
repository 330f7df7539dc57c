/**
 * Atomic batch publish (nats-server 2.12, ADR-50), named as nats.js v3 names it:
 * `js.startBatch(subject, payload, options)` sends the batch's first message and resolves with a
 * `Batch`; `add` stages more (fire and forget, or awaiting the server's empty answer with
 * `ack: true`), `commit` sends the last one and resolves with the `BatchAck`, once the server
 * stored all of the batch or none of it. Each message carries `Nats-Batch-Id` (a NUID),
 * `Nats-Batch-Sequence` (1, 2, ...) and the last `Nats-Batch-Commit: 1`.
 */
import type { Msg, NatsConnection, Payload, RequestOptions } from '@slipstream/client';
import { headers as emptyHeaders, type MsgHdrs, nuid } from '@slipstream/protocol';
import { JetStreamError } from './errors.js';
import { decodePubAckBody, type PubAck, toPubAck } from './pub-ack.js';
import {
  type JetStreamPublishOptions,
  publishHeaders,
  type StreamExpectations,
} from './publish-headers.js';
import { retryingRequest } from './request.js';

export const BatchHeaders = {
  BatchIdHdr: 'Nats-Batch-Id',
  BatchSeqHdr: 'Nats-Batch-Sequence',
  BatchCommitHdr: 'Nats-Batch-Commit',
} as const;

/**
 * A staged message's options: no message id or expected last message id, which a batch cannot
 * keep (the server refuses the latter inside a batch).
 */
export type BatchMessageOptions = Partial<Omit<JetStreamPublishOptions, 'msgID' | 'expect'>> & {
  expect?: Partial<Omit<StreamExpectations, 'lastMsgID'>>;
};

/** With `ack: true`, `add` waits for the server to say it staged the message. */
export type BatchMessageOptionsWithReply = { ack: boolean } & Partial<BatchMessageOptions>;

/** The commit's PubAck: the last message's sequence, the batch's id and its size. */
export type BatchAck = PubAck & { batch: string; count: number };

/** A batch being published; the server holds it until `commit`, at most 10 s between messages. */
export interface Batch {
  /** The batch's id, a NUID chosen by the client. */
  readonly id: string;
  /** Messages sent so far. */
  readonly count: number;
  add(subject: string, payload?: Payload, options?: Partial<BatchMessageOptions>): void;
  add(
    subject: string,
    payload?: Payload,
    options?: Partial<BatchMessageOptionsWithReply>,
  ): Promise<void>;
  commit(subject: string, payload?: Payload, options?: Partial<RequestOptions>): Promise<BatchAck>;
}

export class BatchPublisher implements Batch {
  readonly id = nuid.next();
  #count = 0;
  /** Committed, or a message the server refused: nothing more can be sent. */
  #done = false;

  constructor(
    private readonly nc: NatsConnection,
    /** The client's default request timeout. */
    private readonly timeout: number,
  ) {}

  get count(): number {
    return this.#count;
  }

  /** Sends the first message and waits for the server to stage it. */
  async start(subject: string, payload: Payload, options: Partial<JetStreamPublishOptions>) {
    const reply = await retryingRequest(this.nc, subject, payload, {
      timeout: options.timeout ?? this.timeout,
      headers: this.#headers(options),
      retries: options.retries,
    });
    this.#staged(reply);
  }

  add(subject: string, payload?: Payload, options?: Partial<BatchMessageOptions>): void;
  add(
    subject: string,
    payload?: Payload,
    options?: Partial<BatchMessageOptionsWithReply>,
  ): Promise<void>;
  add(
    subject: string,
    payload: Payload = '',
    options: Partial<BatchMessageOptionsWithReply> = {},
  ): void | Promise<void> {
    this.#ensureOpen();
    const headers = this.#headers(options);
    if (!options.ack) {
      this.nc.publish(subject, payload, { headers });
      return;
    }
    return this.nc
      .request(subject, payload, { headers, timeout: options.timeout ?? this.timeout })
      .then(
        (reply) => this.#staged(reply),
        (error: unknown) => {
          this.#done = true;
          throw error;
        },
      );
  }

  async commit(
    subject: string,
    payload: Payload = '',
    options: Partial<RequestOptions> = {},
  ): Promise<BatchAck> {
    this.#ensureOpen();
    this.#done = true;
    const headers = this.#headers({ headers: options.headers });
    headers.set(BatchHeaders.BatchCommitHdr, '1');
    const reply = await this.nc.request(subject, payload, {
      headers,
      timeout: options.timeout ?? this.timeout,
    });
    const body = decodePubAckBody(reply.data);
    if (body.batch !== this.id || body.count !== this.#count) {
      throw new JetStreamError(
        `batch ack names ${body.count ?? 'no'} messages of batch '${body.batch ?? ''}', ${this.#count} were sent in '${this.id}'`,
      );
    }
    return { ...toPubAck(body), batch: body.batch, count: body.count };
  }

  #ensureOpen(): void {
    if (this.#done) throw new JetStreamError('batch publisher is done');
  }

  /** The message's own headers plus the batch's, numbering it. */
  #headers(options: Partial<BatchMessageOptions>): MsgHdrs {
    const headers = publishHeaders(this.nc, options) ?? emptyHeaders();
    headers.set(BatchHeaders.BatchIdHdr, this.id);
    headers.set(BatchHeaders.BatchSeqHdr, String(++this.#count));
    return headers;
  }

  /**
   * A staged message is answered with an empty message; an error answer ends the batch. A PubAck
   * means the server stored the message on its own: it knows nothing of batches (before 2.12).
   */
  #staged(reply: Msg): void {
    if (reply.data.length === 0) return;
    this.#done = true;
    decodePubAckBody(reply.data);
    throw new JetStreamError(
      'the server stored a batch message on its own: it has no atomic batch publish (nats-server 2.12)',
    );
  }
}
