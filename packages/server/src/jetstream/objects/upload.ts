/**
 * One upload the server assembles: the announced record, the chunks counted and hashed as they
 * pass (SHA-256, so nothing of the content is kept), and the PubAcks of the chunks already handed
 * to the stream, which must all be in before the metadata is stored.
 */
import { createHash, type Hash } from 'node:crypto';
import { objectDigest } from '@slipstream/jsapi';
import type { BucketLayout } from './bucket-layout.js';
import { asObjectApiError, ObjectApiError } from './object-errors.js';
import type { ObjectRecord } from './object-meta.js';

export type ChunkOutcome = 'more' | 'last';

export class Upload {
  readonly #hash: Hash = createHash('sha256');
  #chunks = 0;
  #bytes = 0;
  #unacked = 0;
  #failure: ObjectApiError | undefined;
  #drained: (() => void) | undefined;

  constructor(
    readonly layout: BucketLayout,
    /** The announcement; its digest is filled in at the end. */
    readonly record: ObjectRecord,
  ) {}

  get key(): string {
    return uploadKey(this.layout.bucket, this.record.nonce);
  }

  get progress(): { nonce: string; chunks: number; size: number } {
    return { nonce: this.record.nonce, chunks: this.#chunks, size: this.#bytes };
  }

  /**
   * Counts and hashes one chunk. It is the last when the announced count or size is reached;
   * reaching one without the other, or passing the size, is the mismatch it throws.
   */
  add(chunk: Uint8Array): ChunkOutcome {
    const { chunks, size } = this.record;
    if (chunk.length === 0) throw new ObjectApiError('bad_request', 'a chunk must not be empty');
    if (this.#bytes + chunk.length > size) {
      throw new ObjectApiError(
        'size_mismatch',
        `the chunks hold more than the announced ${size} bytes`,
      );
    }
    this.#hash.update(chunk);
    this.#chunks++;
    this.#bytes += chunk.length;
    const countReached = this.#chunks === chunks;
    const sizeReached = this.#bytes === size;
    if (countReached && !sizeReached) {
      throw new ObjectApiError(
        'size_mismatch',
        `${chunks} chunks hold ${this.#bytes} bytes, not the announced ${size}`,
      );
    }
    if (sizeReached && !countReached) {
      throw new ObjectApiError(
        'count_mismatch',
        `the announced ${size} bytes came in ${this.#chunks} chunks, not ${chunks}`,
      );
    }
    return countReached ? 'last' : 'more';
  }

  /** Follows a chunk's PubAck; the first refusal fails the upload. */
  track(acked: Promise<number>): void {
    this.#unacked++;
    acked.then(
      () => this.#settled(),
      (error: unknown) => {
        this.#failure ??= asObjectApiError(error);
        this.#settled();
      },
    );
  }

  /** Resolves once every chunk is acknowledged; rejects with the first refusal. */
  whenStored(): Promise<void> {
    return new Promise((resolve, reject) => {
      const finish = () => (this.#failure ? reject(this.#failure) : resolve());
      if (this.#unacked === 0) finish();
      else this.#drained = finish;
    });
  }

  /** The digest of everything added, as the metadata carries it. */
  digest(): string {
    return objectDigest(this.#hash.digest());
  }

  #settled(): void {
    this.#unacked--;
    if (this.#unacked === 0) this.#drained?.();
  }
}

export const uploadKey = (bucket: string, nonce: string) => `${bucket}.${nonce}`;
