/**
 * Flow control of a push consumer (nats-server's pbytes/maxpb/fcid): delivery pauses once
 * the bytes sent since the client last answered pass a window; a `100 FlowControl Request`
 * goes out when half the window is used, and the client's reply to its `$JS.FC.` subject
 * releases the bytes sent before it and doubles the window up to 32 MiB.
 */
import { randomBytes } from 'node:crypto';

const MAX_PENDING_BYTES = 32 * 1024 * 1024;
const DIGITS = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

export class FlowControl {
  #window = MAX_PENDING_BYTES / 16;
  #pending = 0;
  /** The reply subject of the request not yet answered. */
  #outstanding: string | undefined;
  #outstandingBytes = 0;

  constructor(private readonly prefix: string) {}

  /** True while delivery must wait for the client. */
  get blocked(): boolean {
    return this.#pending > this.#window;
  }

  /** The unanswered request's subject, reported by idle heartbeats as stalled. */
  get stalledOn(): string | undefined {
    return this.#outstanding;
  }

  /** Counts a delivery; returns the reply subject of a flow control request to send now. */
  delivered(size: number): string | undefined {
    this.#pending += size;
    if (this.#outstanding === undefined && this.#pending > this.#window / 2) {
      this.#outstanding = `${this.prefix}${randomToken()}`;
      this.#outstandingBytes = this.#pending;
      return this.#outstanding;
    }
    if (this.#outstanding !== undefined && this.#pending - this.#outstandingBytes >= this.#window) {
      this.#outstandingBytes += size;
    }
    return undefined;
  }

  /** The client answered `subject`; true when that releases delivery. */
  answered(subject: string): boolean {
    if (subject !== this.#outstanding) return false;
    this.#window = Math.min(this.#window * 2, MAX_PENDING_BYTES);
    this.#pending = Math.max(0, this.#pending - this.#outstandingBytes);
    this.#outstanding = undefined;
    this.#outstandingBytes = 0;
    return true;
  }
}

function randomToken(): string {
  return [...randomBytes(4)].map((byte) => DIGITS[byte % DIGITS.length]).join('');
}
