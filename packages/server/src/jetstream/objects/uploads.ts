/**
 * Uploads assembled by the server. The metadata a client publishes first to
 * `$OBJ.<bucket>.info.<object>` without a digest is held as a pending upload (readers never see
 * it); its chunks on `$OBJ.<bucket>.chunks.<nonce>` are counted, hashed and stored under the
 * layout's chunk subject as they come; after the last one the final metadata is stored with the
 * digest, the replaced object's chunks purged, and the last chunk's reply answered with the
 * ObjectInfo. Metadata that already carries a digest is stored as it is.
 */
import type { InternalMessage } from '../../internal-client.js';
import { bucketLayout } from './bucket-layout.js';
import { answerRefusal, type ObjectApiHost } from './object-api-host.js';
import { ObjectApiError } from './object-errors.js';
import { objectInfo, readAnnouncement } from './object-meta.js';
import { hasChunks, purgeChunks, putRecord } from './object-records.js';
import { type PendingUploadLimits, PendingUploads } from './pending-uploads.js';
import { Upload } from './upload.js';

export class Uploads {
  readonly #pending: PendingUploads;

  constructor(
    private readonly host: ObjectApiHost,
    limits: PendingUploadLimits,
    /** The largest chunk accepted: the account's max payload. */
    private readonly maxChunk: number,
  ) {
    this.#pending = new PendingUploads(limits, (upload) => this.#stalled(upload));
  }

  get pending(): number {
    return this.#pending.size;
  }

  stop(): void {
    this.#pending.clear();
  }

  /** Metadata published to `$OBJ.<bucket>.info.<object>`. */
  announce(bucket: string, message: InternalMessage): void {
    const reply = message.reply;
    try {
      const layout = bucketLayout(this.host.account, bucket);
      const { record, complete } = readAnnouncement(message.payload, bucket);
      if (complete) {
        void this.#storeMeta(new Upload(layout, record), reply, false);
        return;
      }
      const { chunks, size, nonce } = record;
      if ((chunks === 0) !== (size === 0) || chunks > size) {
        throw new ObjectApiError(
          'count_mismatch',
          `${chunks} non-empty chunks cannot hold ${size} bytes`,
        );
      }
      if (this.#pending.get(bucket, nonce) || hasChunks(layout, nonce)) {
        throw new ObjectApiError('nonce_in_use', `nonce '${nonce}' is already used`);
      }
      const upload = new Upload(layout, record);
      if (chunks === 0) {
        void this.#storeMeta(upload, reply, true);
        return;
      }
      this.#pending.add(upload);
      this.host.writer.answer(reply, { pending: true, bucket, name: record.name, nonce });
    } catch (error) {
      answerRefusal(this.host, reply, error);
    }
  }

  /** A chunk published to `$OBJ.<bucket>.chunks.<nonce>`. */
  chunk(bucket: string, nonce: string, message: InternalMessage): void {
    const reply = message.reply;
    const upload = this.#pending.get(bucket, nonce);
    try {
      if (!upload) throw this.#unknownNonce(bucket, nonce);
      let outcome: ReturnType<Upload['add']>;
      try {
        if (message.payload.length > this.maxChunk) {
          throw new ObjectApiError(
            'chunk_too_large',
            `a chunk of ${message.payload.length} bytes is over the max payload of ${this.maxChunk}`,
          );
        }
        outcome = upload.add(message.payload);
      } catch (error) {
        this.#abandon(upload);
        throw error;
      }
      const { writer } = this.host;
      // The stream copies the payload (a view into the publisher's socket chunk) while storing.
      const acked = writer.store(upload.layout.chunkSubject(nonce), message.payload);
      upload.track(acked);
      if (outcome === 'more') {
        this.#pending.touch(upload);
        if (reply) {
          const progress = upload.progress;
          acked.then(
            () => writer.answer(reply, progress),
            (error: unknown) => answerRefusal(this.host, reply, error),
          );
        }
        return;
      }
      this.#pending.remove(upload);
      void this.#storeMeta(upload, reply, true);
    } catch (error) {
      answerRefusal(this.host, reply, error);
    }
  }

  /** Why a chunk has no upload: its nonce was never announced, or its upload is complete. */
  #unknownNonce(bucket: string, nonce: string): ObjectApiError {
    const layout = bucketLayout(this.host.account, bucket);
    if (hasChunks(layout, nonce)) {
      return new ObjectApiError(
        'count_mismatch',
        `more chunks than announced: the upload of nonce '${nonce}' is complete`,
      );
    }
    return new ObjectApiError(
      'unknown_nonce',
      `no pending upload for nonce '${nonce}' (never announced, failed, or timed out)`,
    );
  }

  /**
   * Stores the metadata once every chunk is acknowledged, with the computed digest when the
   * server assembled the object, and answers with the ObjectInfo.
   */
  async #storeMeta(upload: Upload, reply: string | undefined, assembled: boolean): Promise<void> {
    const record = assembled
      ? { ...upload.record, digest: upload.digest(), mtime: new Date().toISOString() }
      : upload.record;
    try {
      await upload.whenStored();
      await putRecord(this.host.writer, upload.layout, record);
      this.host.writer.answer(reply, objectInfo(record));
    } catch (error) {
      if (assembled) this.#abandon(upload);
      answerRefusal(this.host, reply, error);
    }
  }

  #stalled(upload: Upload): void {
    const { name } = upload.record;
    this.host.logger.info(
      `Object store upload of '${name}' to bucket '${upload.layout.bucket}' timed out: its chunks are purged`,
    );
    this.#abandon(upload);
  }

  /** Forgets an upload and removes whatever of it was stored. */
  #abandon(upload: Upload): void {
    this.#pending.remove(upload);
    try {
      purgeChunks(upload.layout, upload.record.nonce);
    } catch (error) {
      this.host.logger.error(
        `Object store could not purge the chunks of nonce '${upload.record.nonce}': ${(error as Error).message}`,
      );
    }
  }
}
