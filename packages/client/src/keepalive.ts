export interface KeepaliveOptions {
  /** Milliseconds between PINGs; 0 or less: no keep-alive. */
  interval: number;
  /** Unanswered PINGs tolerated; the next tick declares the connection stale. */
  maxOutstanding: number;
  /** Sends a PING; `outstanding` counts the unanswered ones, this one included. */
  sendPing(outstanding: number): void;
  stale(): void;
}

/**
 * The client side of NATS keep-alive on one socket: a PING every interval, and the socket is
 * stale when a tick finds maxPingOut of them unanswered. Any PONG resets the count: it proves
 * the server alive, whichever PING it answers.
 */
export class Keepalive {
  readonly #options: KeepaliveOptions;
  #timer: ReturnType<typeof setInterval> | undefined;
  #outstanding = 0;

  constructor(options: KeepaliveOptions) {
    this.#options = options;
  }

  /** Unreferenced: keep-alive alone must not keep an embedding process alive. */
  start(): void {
    this.stop();
    const { interval } = this.#options;
    if (interval <= 0) return;
    this.#timer = setInterval(() => this.#tick(), interval);
    (this.#timer as { unref?: () => void }).unref?.();
  }

  stop(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
  }

  /** The server answered a PING. */
  pong(): void {
    this.#outstanding = 0;
  }

  #tick(): void {
    if (this.#outstanding >= this.#options.maxOutstanding) {
      // The owner closes the socket, which stops the ticks.
      this.#options.stale();
      return;
    }
    this.#outstanding++;
    this.#options.sendPing(this.#outstanding);
  }
}
