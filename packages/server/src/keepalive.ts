import { afterWait } from './timer-delay.js';

/** nats-server sends its first PING to a client after at most 2 s (firstClientPingInterval). */
const FIRST_PING_MAX = 2_000;
/** A round trip measured longer ago than this is measured again even on a busy connection. */
const RTT_MEASUREMENT_INTERVAL = 60 * 60 * 1_000;

export interface KeepaliveOptions {
  /** Milliseconds between PINGs. */
  interval: number;
  /** Unanswered PINGs tolerated; the next tick declares the connection stale. */
  maxOutstanding: number;
  sendPing(): void;
  stale(): void;
}

/**
 * The server side of NATS keepalive, timed like nats-server: nothing runs until {@link start}
 * (after any TLS handshake), which waits a whole interval; CONNECT calls {@link connected}, after
 * which the first PING comes early (min(interval, 2 s) plus up to 20 % jitter, so a fleet of
 * reconnecting clients is not pinged in lock step), later ones every interval. A PING is skipped when the client sent something during
 * the interval and a PING answered within the last hour measured its round trip (an estimate from
 * the CONNECT does not count). When a tick finds `maxOutstanding` PINGs unanswered the connection
 * is stale.
 */
export class Keepalive {
  readonly #options: KeepaliveOptions;
  #timer: NodeJS.Timeout | undefined;
  #outstanding = 0;
  #activeSinceTick = false;
  #pingSentAt = 0;
  /** When a PONG last measured the round trip (performance.now()); 0 = never. */
  #measuredAt = 0;
  /**
   * Round trip in ms: measured by the last answered PING, or until then the connection's own
   * estimate (accept to CONNECT); undefined before either.
   */
  rtt: number | undefined;

  constructor(options: KeepaliveOptions) {
    this.#options = options;
  }

  /**
   * The connection is ready to be served (accepted, TLS handshake done). A client that never
   * sends CONNECT is pinged only after a whole interval, as nats-server 2.9.10 does.
   */
  start(): void {
    this.#schedule(this.#options.interval);
  }

  /** The client sent CONNECT: the first PING now comes early, to measure the round trip. */
  connected(): void {
    clearTimeout(this.#timer);
    const first = Math.min(this.#options.interval, FIRST_PING_MAX);
    this.#schedule(first + Math.random() * (first / 5));
  }

  /** The client sent something: it is alive. */
  activity(): void {
    this.#activeSinceTick = true;
  }

  /** The client answered a PING. */
  pong(): void {
    if (this.#outstanding > 0 && this.#pingSentAt !== 0) {
      const now = performance.now();
      this.rtt = now - this.#pingSentAt;
      this.#measuredAt = now;
      this.#pingSentAt = 0;
    }
    this.#outstanding = 0;
  }

  stop(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  /** Unreferenced: keepalive alone must not keep an embedding process alive. */
  #schedule(delay: number): void {
    afterWait(
      delay,
      () => this.#tick(),
      (timer) => {
        this.#timer = timer;
      },
    );
  }

  #tick(): void {
    const measured =
      this.#measuredAt !== 0 && performance.now() - this.#measuredAt < RTT_MEASUREMENT_INTERVAL;
    const skip = this.#activeSinceTick && measured;
    this.#activeSinceTick = false;
    if (!skip) {
      if (this.#outstanding + 1 > this.#options.maxOutstanding) {
        this.stop();
        this.#options.stale();
        return;
      }
      this.#outstanding++;
      if (this.#pingSentAt === 0) this.#pingSentAt = performance.now();
      this.#options.sendPing();
    }
    this.#schedule(this.#options.interval);
  }
}
