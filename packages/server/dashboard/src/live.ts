/** What the server's live feed (`/dashboard/events`) sends every second. */
export interface Varz {
  server_name: string;
  server_id: string;
  version: string;
  slipstream_version?: string;
  now: string;
  start: string;
  uptime: string;
  mem: number;
  cpu: number;
  cores: number;
  connections: number;
  total_connections: number;
  subscriptions: number;
  slow_consumers: number;
  in_msgs: number;
  out_msgs: number;
  in_bytes: number;
  out_bytes: number;
  max_payload: number;
  jetstream?: {
    config?: { sync_always?: boolean; sync_interval?: number };
    stats?: { memory: number; storage: number; api?: { total: number; errors: number } };
  };
}

export interface StreamState {
  messages: number;
  bytes: number;
  first_seq: number;
  last_seq: number;
  consumer_count: number;
}

export interface Tick {
  varz: Varz;
  /** Each JetStream account's streams and their state. */
  jetstream?: Record<string, Record<string, StreamState>>;
}

/** One second's traffic, from two consecutive ticks. */
export interface Rates {
  inMsgs: number;
  outMsgs: number;
  inBytes: number;
  outBytes: number;
}

const HISTORY = 60;

/**
 * The feed, with the last minute of traffic rates kept for the sparklines; listeners hear each
 * tick. EventSource reconnects by itself when the server comes back.
 */
export class Live {
  readonly rates: Rates[] = [];
  last: Tick | undefined;
  readonly #listeners = new Set<(tick: Tick) => void>();

  constructor(onStatus: (online: boolean) => void) {
    const source = new EventSource('/dashboard/events');
    source.addEventListener('open', () => onStatus(true));
    source.addEventListener('error', () => onStatus(false));
    source.addEventListener('tick', (event) => {
      const tick = JSON.parse((event as MessageEvent<string>).data) as Tick;
      this.#record(tick);
      this.last = tick;
      for (const listener of this.#listeners) listener(tick);
    });
  }

  listen(listener: (tick: Tick) => void): () => void {
    this.#listeners.add(listener);
    if (this.last) listener(this.last);
    return () => this.#listeners.delete(listener);
  }

  #record(tick: Tick): void {
    const previous = this.last?.varz;
    if (!previous) return;
    const seconds = Math.max(0.001, (Date.parse(tick.varz.now) - Date.parse(previous.now)) / 1000);
    const per = (now: number, before: number) => Math.max(0, now - before) / seconds;
    this.rates.push({
      inMsgs: per(tick.varz.in_msgs, previous.in_msgs),
      outMsgs: per(tick.varz.out_msgs, previous.out_msgs),
      inBytes: per(tick.varz.in_bytes, previous.in_bytes),
      outBytes: per(tick.varz.out_bytes, previous.out_bytes),
    });
    if (this.rates.length > HISTORY) this.rates.shift();
  }
}
