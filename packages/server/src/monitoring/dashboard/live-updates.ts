import type { ServerResponse } from 'node:http';

const TICK_MS = 1_000;

/**
 * The dashboard's live feed, server-sent events: every second one `tick` event whose data is what
 * `snapshot()` returns (the figures of /varz and /jsz), so an open page follows the server
 * without polling each endpoint. One timer serves every open feed, and runs only while one is open.
 */
export class LiveUpdates {
  readonly #feeds = new Set<ServerResponse>();
  readonly #snapshot: () => unknown;
  #timer: NodeJS.Timeout | undefined;

  constructor(snapshot: () => unknown) {
    this.#snapshot = snapshot;
  }

  open(res: ServerResponse): void {
    res.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-store',
      Connection: 'keep-alive',
    });
    this.#feeds.add(res);
    res.on('close', () => {
      this.#feeds.delete(res);
      if (this.#feeds.size === 0) this.#stop();
    });
    // The first figures at once, so a page need not wait a second for its first draw.
    res.write(this.#event());
    this.#timer ??= setInterval(() => this.#broadcast(), TICK_MS);
  }

  close(): void {
    this.#stop();
    for (const res of this.#feeds) res.end();
    this.#feeds.clear();
  }

  #broadcast(): void {
    const event = this.#event();
    for (const res of this.#feeds) res.write(event);
  }

  #event(): string {
    return `event: tick\ndata: ${JSON.stringify(this.#snapshot())}\n\n`;
  }

  #stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }
}
