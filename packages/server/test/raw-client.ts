import { connect, type Socket } from 'node:net';

/** A NATS connection driven by hand over node:net: send raw protocol text, wait for raw replies. */
export class RawClient {
  text = '';
  readonly closed: Promise<void>;
  #closed = false;
  #waiters = new Set<() => void>();

  private constructor(readonly socket: Socket) {
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      this.text += chunk;
      this.#notify();
    });
    socket.on('error', () => {});
    this.closed = new Promise((resolve) =>
      socket.once('close', () => {
        this.#closed = true;
        this.#notify();
        resolve();
      }),
    );
  }

  /** Drives an already connected socket (a TLS socket after the upgrade, say). */
  static over(socket: Socket): RawClient {
    return new RawClient(socket);
  }

  static async connect(port: number): Promise<RawClient> {
    const socket = connect({ port, host: '127.0.0.1', noDelay: true });
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('error', reject);
    });
    return new RawClient(socket);
  }

  /** Connects and waits for the server's INFO line. */
  static async connectAndGreet(port: number): Promise<RawClient> {
    const client = await RawClient.connect(port);
    await client.waitFor(/^INFO .*\r\n/);
    return client;
  }

  get isClosed(): boolean {
    return this.#closed;
  }

  /** The JSON of the first INFO received. */
  info(): Record<string, unknown> {
    const match = /^INFO (.*) \r\n/.exec(this.text);
    if (!match) throw new Error(`no INFO in ${JSON.stringify(this.text)}`);
    return JSON.parse(match[1]!);
  }

  send(data: string | Uint8Array): Promise<void> {
    return new Promise((resolve) => {
      if (this.socket.destroyed) resolve();
      else this.socket.write(data, () => resolve());
    });
  }

  /** Resolves with the text received so far once `pattern` occurs in it; rejects after `timeoutMs`. */
  waitFor(pattern: string | RegExp, timeoutMs = 5_000): Promise<string> {
    return this.waitUntil(
      (text) => (typeof pattern === 'string' ? text.includes(pattern) : pattern.test(text)),
      timeoutMs,
      `waiting for ${pattern}`,
    );
  }

  /** Resolves with the text received so far once `condition` holds for it; rejects after `timeoutMs`. */
  async waitUntil(
    condition: (text: string) => boolean,
    timeoutMs = 5_000,
    what = 'waiting',
  ): Promise<string> {
    await this.#until(
      () => condition(this.text),
      timeoutMs,
      () => what,
    );
    return this.text;
  }

  /** Sends PING and waits for the matching PONG, so everything the server sent before is in `text`. */
  async sync(timeoutMs = 5_000): Promise<string> {
    const pongs = this.text.split('PONG\r\n').length - 1;
    await this.send('PING\r\n');
    await this.#until(
      () => this.text.split('PONG\r\n').length - 1 > pongs,
      timeoutMs,
      () => 'waiting for PONG',
    );
    return this.text;
  }

  /**
   * Waits for the first MSG (without headers) to `subject` received after `text` had `from`
   * characters, and returns its payload. nats-server 2.9.10 writes a PubAck's MSG line with two
   * spaces before the size, so any number is taken.
   */
  async messageTo(subject: string, from: number, timeoutMs = 5_000): Promise<string> {
    const escaped = subject.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const pattern = new RegExp(`MSG ${escaped} \\S+ +(?:\\S+ +)?(\\d+)\\r\\n`);
    await this.waitUntil(
      (text) => pattern.test(text.slice(from)),
      timeoutMs,
      `waiting for MSG ${subject}`,
    );
    const rest = this.text.slice(from);
    const match = pattern.exec(rest)!;
    const start = match.index + match[0].length;
    return rest.slice(start, start + Number(match[1]));
  }

  /** Waits until the server has closed the connection. */
  async waitClosed(timeoutMs = 5_000): Promise<string> {
    await this.#until(
      () => this.#closed,
      timeoutMs,
      () => 'waiting for close',
    );
    return this.text;
  }

  /** Text received after the first INFO line. */
  afterInfo(): string {
    return this.text.replace(/^INFO .*\r\n/, '');
  }

  close(): void {
    this.socket.destroy();
  }

  #notify(): void {
    for (const waiter of this.#waiters) waiter();
  }

  #until(done: () => boolean, timeoutMs: number, what: () => string): Promise<void> {
    return new Promise((resolve, reject) => {
      const finish = (error?: Error) => {
        clearTimeout(timer);
        this.#waiters.delete(check);
        if (error) reject(error);
        else resolve();
      };
      const got = () => JSON.stringify(this.text.slice(-500));
      // A close makes the condition final: fail at once instead of waiting for the timer.
      const check = () => {
        if (done()) finish();
        else if (this.#closed) finish(new Error(`${what()}: connection closed; got ${got()}`));
      };
      const timer = setTimeout(
        () => finish(new Error(`${what()} after ${timeoutMs} ms; got ${got()}`)),
        timeoutMs,
      );
      this.#waiters.add(check);
      check();
    });
  }
}

export const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
