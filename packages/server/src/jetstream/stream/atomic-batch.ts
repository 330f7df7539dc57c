/**
 * Atomic batch publish (nats-server 2.12, ADR-50): messages carrying `Nats-Batch-Id` and
 * `Nats-Batch-Sequence` are staged per batch, each answered with an empty message when it asks
 * for a reply; the one with `Nats-Batch-Commit: 1` has the whole batch checked
 * (batch-checks.ts) and stored as one unit of the store (one SQLite transaction), or none of
 * it, and its PubAck names the batch and its size. Behaviour and errors follow
 * processJetStreamBatchMsg (server/stream.go:6387-6800 at v2.12.15) and
 * server/jetstream_batching.go for a single server; staging is in memory, as nats-server drops a
 * batch that was not committed when it restarts.
 */
import { ApiError, type JsErrorEntry, jsErrors, type StreamConfig } from '@slipstream/jsapi';
import type { InternalClient, InternalMessage } from '../../internal-client.js';
import type { AtomicBatchLimits } from '../../options.js';
import { deadline } from '../../timer-delay.js';
import type { BatchAbandonReason } from '../advisories.js';
import { headerValue, withoutHeader } from '../shared/header-block.js';
import type { MessageStore } from '../store/message-store.js';
import { type BatchMessage, checkBatch, parseSequence } from './batch-checks.js';
import { REQUIRED_API_LEVEL_HEADER, requiredApiLevelRefused } from './stream-api-level.js';

export const BATCH_ID_HEADER = 'Nats-Batch-Id';
export const BATCH_SEQUENCE_HEADER = 'Nats-Batch-Sequence';
export const BATCH_COMMIT_HEADER = 'Nats-Batch-Commit';
const MAX_BATCH_ID_LENGTH = 64;
const EMPTY = new Uint8Array(0);

/** nats-server's JSPubAckResponse with an error: `{"error":{...},"stream":"S","seq":0}`. */
export function pubAckRefusal(stream: string, error: ApiError): Buffer {
  return Buffer.from(
    JSON.stringify({
      error: { code: error.code, err_code: error.errCode, description: error.description },
      stream,
      seq: 0,
    }),
  );
}

/**
 * Mirrors and sources store what they copy without its batch headers: batching is the origin's
 * (nats-server 2.12 removes every `Nats-Batch-` header, stream.go:3336 and 3918 at v2.12.1).
 */
export function withoutBatchHeaders(headers: Uint8Array | undefined): Uint8Array | undefined {
  let kept = headers;
  for (const name of [BATCH_ID_HEADER, BATCH_SEQUENCE_HEADER, BATCH_COMMIT_HEADER]) {
    kept = withoutHeader(kept, name);
  }
  return kept;
}

/**
 * The batches open on the whole server (nats-server's globalInflightBatches), shared by every
 * account's streams, with the server's limits.
 */
export class BatchBudget {
  #open = 0;

  constructor(readonly limits: AtomicBatchLimits) {}

  /** Counts one more open batch, unless the server already holds as many as it allows. */
  tryOpen(): boolean {
    if (this.#open >= this.limits.maxInflightTotal) return false;
    this.#open++;
    return true;
  }

  close(): void {
    this.#open--;
  }
}

/** What a stream lends its batches. */
export interface BatchedStream {
  readonly name: string;
  /** The stream's config as it is now (an update changes it). */
  config(): StreamConfig;
  readonly store: MessageStore;
  readonly client: InternalClient;
  readonly budget: BatchBudget;
  /** The server's or account's storage budget refuses `bytes` more. */
  exhausted(bytes: number): JsErrorEntry | undefined;
  /** The subject a message is stored under (the stream's subject transform). */
  storedSubject(subject: string): string;
  /** Whether the duplicate window holds `msgId`. */
  isDuplicate(msgId: string): boolean;
  /** Stores one checked message of a committed batch through the stream's publish path. */
  ingest(message: BatchMessage): void;
  /** Sends the commit's PubAck (`fields` after the sequence) once the store made it durable. */
  acknowledge(reply: string, seq: number, fields: string): void;
  abandoned(batchId: string, reason: BatchAbandonReason): void;
  logError(text: string): void;
}

interface OpenBatch {
  readonly messages: BatchMessage[];
  readonly cancelTimeout: () => void;
}

/** A stream's open batches. */
export class AtomicBatches {
  readonly #open = new Map<string, OpenBatch>();

  constructor(private readonly stream: BatchedStream) {}

  /**
   * Takes a published message that belongs to a batch (a non-empty `Nats-Batch-Id`): it is
   * refused, staged or commits its batch here. False for any other message.
   */
  take(message: InternalMessage, headers: Uint8Array | undefined): boolean {
    const batchId = headers && headers.length > 0 ? headerValue(headers, BATCH_ID_HEADER) : '';
    if (!batchId || !headers) return false;
    this.#receive(batchId, message.subject, message.reply, headers, message.payload);
    return true;
  }

  /** Drops every open batch without a word (atomic publish turned off, the stream closed). */
  abandonAll(): void {
    for (const batchId of [...this.#open.keys()]) this.#drop(batchId);
  }

  #receive(
    batchId: string,
    subject: string,
    reply: string | undefined,
    headers: Uint8Array,
    payload: Uint8Array,
  ): undefined {
    const { budget } = this.stream;
    const config = this.stream.config();
    const refuse = (entry: JsErrorEntry, values?: Record<string, string | number>): undefined =>
      this.#refuse(reply, ApiError.of(entry, values as never));
    if (config.sealed) return refuse(jsErrors.JSStreamSealedErr);
    const exhausted = this.stream.exhausted(subject.length + headers.length + payload.length);
    if (exhausted) return refuse(exhausted);
    const maxMsgSize = config.max_msg_size ?? -1;
    if (maxMsgSize >= 0 && headers.length + payload.length > maxMsgSize) {
      return refuse(jsErrors.JSStreamMessageExceedsMaximumErr);
    }
    if (!config.allow_atomic) return refuse(jsErrors.JSAtomicPublishDisabledErr);
    if (batchId.length > MAX_BATCH_ID_LENGTH)
      return refuse(jsErrors.JSAtomicPublishInvalidBatchIDErr);
    const sequenceText = headerValue(headers, BATCH_SEQUENCE_HEADER);
    if (!sequenceText) return refuse(jsErrors.JSAtomicPublishMissingSeqErr);
    const sequence = parseSequence(sequenceText);
    const { maxMsgs, maxInflightPerStream } = budget.limits;
    const incomplete = () => refuse(jsErrors.JSAtomicPublishIncompleteBatchErr);
    let batch = this.#open.get(batchId);
    if (!batch) {
      if (sequence !== 1n) {
        // A batch's later message whose start never came, or was dropped.
        if (sequence > BigInt(maxMsgs)) {
          return refuse(jsErrors.JSAtomicPublishTooLargeBatchErrF, { size: maxMsgs });
        }
        return incomplete();
      }
      if (this.#open.size + 1 > maxInflightPerStream || !budget.tryOpen()) return incomplete();
      batch = this.#opened(batchId);
    }
    const commit = headerValue(headers, BATCH_COMMIT_HEADER);
    if (commit !== undefined && commit !== '1') {
      this.#drop(batchId);
      return refuse(jsErrors.JSAtomicPublishInvalidBatchCommitErr);
    }
    // A level the server lacks drops the batch; a level it has is checked and not stored.
    let kept = headers;
    if (headerValue(headers, REQUIRED_API_LEVEL_HEADER)) {
      if (requiredApiLevelRefused(headers)) {
        this.#abandon(batchId, 'unsupported');
        return refuse(jsErrors.JSRequiredApiLevelErr);
      }
      kept = withoutHeader(headers, REQUIRED_API_LEVEL_HEADER) ?? headers;
    }
    if (BigInt(batch.messages.length + 1) !== sequence) {
      this.#abandon(batchId, 'incomplete');
      return incomplete();
    }
    if (sequence > BigInt(maxMsgs)) {
      this.#abandon(batchId, 'large');
      return refuse(jsErrors.JSAtomicPublishTooLargeBatchErrF, { size: maxMsgs });
    }
    // The bytes may be views into a socket's buffer: the batch keeps its own copy.
    batch.messages.push({
      subject,
      headers: Uint8Array.from(kept),
      payload: Uint8Array.from(payload),
    });
    if (commit === undefined) {
      // The empty answer tells the publisher the message is staged (its flow control).
      if (reply) this.stream.client.respond(reply, EMPTY);
      return;
    }
    this.#drop(batchId);
    return this.#commit(batchId, batch.messages, reply);
  }

  #opened(batchId: string): OpenBatch {
    const batch: OpenBatch = {
      messages: [],
      cancelTimeout: deadline(this.stream.budget.limits.timeout, () =>
        this.#abandon(batchId, 'timeout'),
      ),
    };
    this.#open.set(batchId, batch);
    return batch;
  }

  #abandon(batchId: string, reason: BatchAbandonReason): void {
    this.#drop(batchId);
    this.stream.abandoned(batchId, reason);
  }

  #drop(batchId: string): void {
    const batch = this.#open.get(batchId);
    if (!batch) return;
    batch.cancelTimeout();
    this.#open.delete(batchId);
    this.stream.budget.close();
  }

  /** Checks the whole batch, then stores it as one unit of the store, or refuses it whole. */
  #commit(
    batchId: string,
    messages: readonly BatchMessage[],
    reply: string | undefined,
  ): undefined {
    const { store } = this.stream;
    // The storage budget for all of it at once: the stream's publish path checks each message
    // alone, and a memory store cannot undo the ones stored before a refusal.
    const bytes = messages.reduce(
      (sum, m) => sum + m.subject.length + m.headers.length + m.payload.length,
      0,
    );
    const exhausted = this.stream.exhausted(bytes);
    if (exhausted) return this.#refuse(reply, ApiError.of(exhausted));
    const state = store.state();
    const refusal = checkBatch(
      {
        config: this.stream.config(),
        kind: store.kind,
        lastSeq: state.lastSeq,
        messages: state.messages,
        bytes: state.bytes,
        storedSubject: (subject) => this.stream.storedSubject(subject),
        lastSeqOf: (filter) => lastSeqOf(store, filter),
        messagesOn: (subject) => store.filteredState(0, subject).messages,
        isDuplicate: (msgId) => this.stream.isDuplicate(msgId),
      },
      messages,
    );
    if (refusal) return this.#refuse(reply, refusal);
    try {
      store.atomically(() => {
        for (const message of messages) {
          const expected = store.state().lastSeq + 1;
          this.stream.ingest(message);
          // The checks leave the stream's publish path nothing to refuse; should it still (the
          // store failing), the whole batch is undone.
          if (store.state().lastSeq !== expected) throw new BatchNotStored();
        }
      });
    } catch (error) {
      this.stream.logError(
        `JetStream could not store atomic batch '${batchId}' on stream '${this.stream.name}': ${(error as Error).message}`,
      );
      return this.#refuse(reply, ApiError.of(jsErrors.JSInsufficientResourcesErr));
    }
    if (!reply) return;
    const fields = `,"batch":${JSON.stringify(batchId)},"count":${messages.length}`;
    this.stream.acknowledge(reply, store.state().lastSeq, fields);
  }

  #refuse(reply: string | undefined, error: ApiError): undefined {
    if (reply) this.stream.client.respond(reply, pubAckRefusal(this.stream.name, error));
  }
}

class BatchNotStored extends Error {
  constructor() {
    super('a message of the batch was not stored');
  }
}

function lastSeqOf(store: MessageStore, filter: string): number {
  try {
    return store.loadLast(filter)?.seq ?? 0;
  } catch {
    return 0;
  }
}
