/**
 * Room `jetstream/objects/` (this is its main file): the `$OBJ` object store API.
 *
 * The server-side object store API on `$OBJ.<bucket>` (this directory): for clients that can
 * only publish and request, the server does what the official object store clients do
 * themselves. Uploads are assembled by the server (`uploads.ts`: metadata to
 * `$OBJ.<bucket>.info.<object>`, chunks to `$OBJ.<bucket>.chunks.<nonce>`, checked, hashed and
 * stored), requests to `$OBJ.<bucket>` list, describe, get (`object-delivery.ts`) and delete
 * (`object-requests.ts`), and watchers of `$OBJ.<bucket>.info.>` hear of every change
 * (`object-watch.ts`). It works on buckets of the official layout (`$O.` subjects, so objects
 * interoperate with @nats-io/obj both ways) and of the document's (`$OBJ.<bucket>.>`), told
 * apart by the stream's subjects (`bucket-layout.ts`). One `ObjectApi` per JetStream account,
 * on the account's internal client like the `$JS.API` dispatcher; what it stores goes through
 * the stream's publish path (`stream-writer.ts`). Errors are `object-errors.ts`'s closed set.
 */
import type { InternalClient, InternalMessage } from '../../internal-client.js';
import type { Logger } from '../../logger.js';
import type { Subscription } from '../../subscription.js';
import type { JsAccount } from '../js-account.js';
import type { Stream } from '../stream/stream.js';
import { layoutOf } from './bucket-layout.js';
import type { ObjectApiHost } from './object-api-host.js';
import { type DeliveryTarget, ObjectDelivery } from './object-delivery.js';
import { ObjectRequests } from './object-requests.js';
import { ObjectWatch } from './object-watch.js';
import { StreamWriter } from './stream-writer.js';
import { Uploads } from './uploads.js';

export interface ObjectApiOptions {
  /** Milliseconds an upload may wait for its next chunk (and a reader for flow control). */
  readonly uploadTimeout: number;
  /** Uploads one account may have pending at once. */
  readonly maxPendingUploads: number;
  /** The largest chunk accepted: the server's max payload. */
  readonly maxChunk: number;
}

const API_SUBJECTS = '$OBJ.>';

export class ObjectApi {
  readonly #host: ObjectApiHost;
  readonly #uploads: Uploads;
  readonly #requests: ObjectRequests;
  readonly #watch: ObjectWatch;
  readonly #deliveries = new Set<ObjectDelivery>();
  #subscription: Subscription | undefined;

  constructor(
    client: InternalClient,
    account: JsAccount,
    logger: Logger,
    private readonly options: ObjectApiOptions,
  ) {
    const writer = new StreamWriter(client, options.uploadTimeout);
    this.#host = { client, account, writer, logger };
    this.#uploads = new Uploads(
      this.#host,
      { timeout: options.uploadTimeout, maxPending: options.maxPendingUploads },
      options.maxChunk,
    );
    this.#requests = new ObjectRequests(this.#host, (target) => this.#deliver(target));
    this.#watch = new ObjectWatch(this.#host);
  }

  /** Uploads announced and not yet finished. */
  get pendingUploads(): number {
    return this.#uploads.pending;
  }

  start(): void {
    this.#host.writer.start();
    this.#watch.start();
    this.#subscription = this.#host.client.subscribe(API_SUBJECTS, (m) => this.#received(m));
  }

  stop(): void {
    if (this.#subscription) this.#host.client.unsubscribe(this.#subscription);
    this.#subscription = undefined;
    this.#watch.stop();
    this.#uploads.stop();
    for (const delivery of this.#deliveries) delivery.stop();
    this.#deliveries.clear();
    this.#host.writer.stop();
  }

  /**
   * Whether a message a document-layout stream would capture is the API's instead: a client's
   * metadata or chunk, which the API checks and stores itself (the stream still stores what the
   * API sends, and anything else on its subjects).
   */
  claims(stream: Stream, message: InternalMessage): boolean {
    const { subject } = message;
    if (!subject.startsWith('$OBJ.') || this.#host.writer.sending) return false;
    const [, bucket, kind] = subject.split('.', 3);
    if (kind !== 'info' && kind !== 'chunks') return false;
    return (
      stream.name === `OBJ_${bucket}` &&
      layoutOf(stream.config.subjects ?? [], bucket!) === 'document'
    );
  }

  #received(message: InternalMessage): void {
    // What the API sends on $OBJ subjects (a stored record, a notification) comes back here.
    if (this.#host.writer.sending) return;
    // A consumer delivering to a deliver subject under $OBJ. hands over the stored message's own
    // subject, which need not be an $OBJ one: such a message is no request of this API.
    const tokens = message.subject.split('.');
    if (tokens[0] !== '$OBJ') return;
    const bucket = tokens[1]!;
    if (tokens.length === 2) this.#requests.handle(bucket, message);
    else if (tokens[2] === 'info' && tokens.length >= 4) this.#uploads.announce(bucket, message);
    else if (tokens[2] === 'chunks' && tokens.length === 4) {
      this.#uploads.chunk(bucket, tokens[3]!, message);
    }
  }

  #deliver(target: DeliveryTarget): void {
    const delivery = new ObjectDelivery(
      this.#host.client,
      this.#host.writer,
      target,
      this.options.uploadTimeout,
      (done) => this.#deliveries.delete(done),
    );
    this.#deliveries.add(delivery);
    delivery.start();
  }
}
