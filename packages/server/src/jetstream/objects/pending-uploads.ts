/**
 * The uploads an account has announced and not finished: at most a configured number at once
 * (the rest are refused), each forgotten, and its `onStalled` called, when no chunk came for the
 * configured timeout, so an abandoned upload holds nothing past it.
 */
import { deadline } from '../../timer-delay.js';
import { ObjectApiError } from './object-errors.js';
import { type Upload, uploadKey } from './upload.js';

export interface PendingUploadLimits {
  /** Milliseconds an upload may wait for its next chunk. */
  readonly timeout: number;
  /** Uploads one account may have pending at once. */
  readonly maxPending: number;
}

export class PendingUploads {
  readonly #uploads = new Map<string, { upload: Upload; cancelTimer: () => void }>();

  constructor(
    private readonly limits: PendingUploadLimits,
    private readonly onStalled: (upload: Upload) => void,
  ) {}

  get size(): number {
    return this.#uploads.size;
  }

  add(upload: Upload): void {
    if (this.#uploads.has(upload.key)) {
      throw new ObjectApiError(
        'nonce_in_use',
        `nonce '${upload.record.nonce}' is already used by a pending upload`,
      );
    }
    if (this.#uploads.size >= this.limits.maxPending) {
      throw new ObjectApiError(
        'too_many_pending',
        `the account already has ${this.limits.maxPending} pending uploads`,
      );
    }
    this.#uploads.set(upload.key, { upload, cancelTimer: this.#arm(upload) });
  }

  get(bucket: string, nonce: string): Upload | undefined {
    return this.#uploads.get(uploadKey(bucket, nonce))?.upload;
  }

  /** A chunk came: the timeout starts again. */
  touch(upload: Upload): void {
    const entry = this.#uploads.get(upload.key);
    if (!entry || entry.upload !== upload) return;
    entry.cancelTimer();
    entry.cancelTimer = this.#arm(upload);
  }

  remove(upload: Upload): void {
    const entry = this.#uploads.get(upload.key);
    if (!entry || entry.upload !== upload) return;
    entry.cancelTimer();
    this.#uploads.delete(upload.key);
  }

  clear(): void {
    for (const { cancelTimer } of this.#uploads.values()) cancelTimer();
    this.#uploads.clear();
  }

  #arm(upload: Upload): () => void {
    return deadline(this.limits.timeout, () => {
      this.#uploads.delete(upload.key);
      this.onStalled(upload);
    });
  }
}
