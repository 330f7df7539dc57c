/**
 * A push consumer's rate_limit_bps: a bucket of bytes that refills at the configured rate and
 * holds at most `burst` bytes (the stream's max_msg_size, else the 1 MiB max payload), full at
 * the start, as the token bucket nats-server uses.
 */
const DEFAULT_BURST = 1024 * 1024;

export class RateLimit {
  readonly #bytesPerMs: number;
  readonly #burst: number;
  #tokens: number;
  #at = Date.now();

  constructor(bitsPerSecond: number, maxMsgSize: number | undefined) {
    this.#bytesPerMs = bitsPerSecond / 8 / 1000;
    this.#burst = maxMsgSize && maxMsgSize > 0 ? maxMsgSize : DEFAULT_BURST;
    this.#tokens = this.#burst;
  }

  /** Takes `bytes` if the bucket has them (0), else says how many ms until it will. */
  take(bytes: number): number {
    const now = Date.now();
    this.#tokens = Math.min(this.#burst, this.#tokens + (now - this.#at) * this.#bytesPerMs);
    this.#at = now;
    // A message larger than the burst goes once the bucket is full.
    const needed = Math.min(bytes, this.#burst);
    if (this.#tokens >= needed) {
      this.#tokens -= bytes;
      return 0;
    }
    return Math.ceil((needed - this.#tokens) / this.#bytesPerMs);
  }
}
