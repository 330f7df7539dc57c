/**
 * A NATS connection for consumer tests, driven at the protocol level so a test sees exactly
 * what a server sends: MSG and HMSG frames with their subject, reply and header block
 * (status lines included), as nats-server 2.9.10 and ours write them.
 */

import { mkdtemp, rm } from 'node:fs/promises';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startNatsServer } from '@slipstream/test-servers';
import { type NatsServer, silentLogger, startServer } from '../src/index.js';

export interface WireMessage {
  subject: string;
  sid: string;
  reply: string | undefined;
  /** The raw header block, when the frame was an HMSG. */
  headers: string | undefined;
  data: string;
  /** When it arrived (Date.now()). */
  at: number;
}

export class ConsumerWire {
  readonly messages: WireMessage[] = [];
  #buffer = Buffer.alloc(0);
  #nextSid = 1;
  #nextInbox = 1;
  #pongs = 0;
  #waiters = new Set<() => void>();
  readonly #sids = new Map<string, string>();

  private constructor(private readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.#buffer = Buffer.concat([this.#buffer, chunk]);
      this.#parse();
      for (const waiter of this.#waiters) waiter();
    });
    socket.on('error', () => {});
  }

  /** Connects, as `login` (a user of an account) when given. */
  static async connect(
    port: number,
    login?: { user: string; pass: string },
  ): Promise<ConsumerWire> {
    const socket = connect({ port, host: '127.0.0.1', noDelay: true });
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('error', reject);
    });
    const wire = new ConsumerWire(socket);
    const options = { verbose: false, headers: true, protocol: 1, ...login };
    socket.write(`CONNECT ${JSON.stringify(options)}\r\n`);
    await wire.flush();
    return wire;
  }

  /** Subscribes; returns the sid. */
  sub(subject: string, queue?: string): string {
    const sid = String(this.#nextSid++);
    this.#sids.set(subject, sid);
    this.socket.write(`SUB ${subject}${queue ? ` ${queue}` : ''} ${sid}\r\n`);
    return sid;
  }

  unsub(sid: string): void {
    this.socket.write(`UNSUB ${sid}\r\n`);
  }

  pub(subject: string, body: unknown = '', reply?: string): void {
    const data = Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
    this.socket.write(`PUB ${subject}${reply ? ` ${reply}` : ''} ${data.length}\r\n`);
    this.socket.write(Buffer.concat([data, Buffer.from('\r\n')]));
  }

  /** A fresh inbox subject, subscribed. */
  inbox(): string {
    const subject = `_WIRE.${this.#nextInbox++}`;
    this.sub(subject);
    return subject;
  }

  /** Sends a request and returns its JSON answer. */
  async request(subject: string, body: unknown = ''): Promise<Record<string, unknown>> {
    const inbox = this.inbox();
    this.pub(subject, body, inbox);
    const [answer] = await this.received(inbox, 1);
    return JSON.parse(answer!.data);
  }

  /**
   * Waits until `count` messages arrived for the subscription to `subject` (or the timeout);
   * returns those there. A JetStream delivery shows the stored message's subject instead.
   */
  async received(subject: string, count: number, timeoutMs = 5_000): Promise<WireMessage[]> {
    await this.#until(() => this.on(subject).length >= count, timeoutMs).catch(() => {});
    return this.on(subject);
  }

  /** What the subscription to `subject` received so far. */
  on(subject: string): WireMessage[] {
    const sid = this.#sids.get(subject);
    return this.messages.filter((m) => m.sid === sid);
  }

  /** Resolves once the server has processed everything sent before. */
  async flush(): Promise<void> {
    const want = this.#pongs + 1;
    this.socket.write('PING\r\n');
    await this.#until(() => this.#pongs >= want, 5_000);
  }

  close(): void {
    this.socket.destroy();
  }

  #until(done: () => boolean, timeoutMs: number): Promise<void> {
    if (done()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const check = () => {
        if (!done()) return;
        clearTimeout(timer);
        this.#waiters.delete(check);
        resolve();
      };
      const timer = setTimeout(() => {
        this.#waiters.delete(check);
        reject(new Error('timed out'));
      }, timeoutMs);
      this.#waiters.add(check);
    });
  }

  #parse(): void {
    for (;;) {
      const end = this.#buffer.indexOf('\r\n');
      if (end < 0) return;
      const line = this.#buffer.toString('latin1', 0, end);
      const [op, ...args] = line.split(' ').filter((part) => part !== '');
      if (op === 'MSG' || op === 'HMSG') {
        const headed = op === 'HMSG';
        const total = Number(args[args.length - 1]);
        const headerLength = headed ? Number(args[args.length - 2]) : 0;
        const fixed = headed ? 4 : 3;
        const start = end + 2;
        if (this.#buffer.length < start + total + 2) return;
        const frame = this.#buffer.subarray(start, start + total);
        this.messages.push({
          subject: args[0]!,
          sid: args[1]!,
          reply: args.length > fixed ? args[2] : undefined,
          headers: headed ? frame.toString('latin1', 0, headerLength) : undefined,
          data: frame.toString('utf8', headerLength),
          at: Date.now(),
        });
        this.#buffer = this.#buffer.subarray(start + total + 2);
        continue;
      }
      if (op === 'PING') this.socket.write('PONG\r\n');
      if (op === 'PONG') this.#pongs++;
      this.#buffer = this.#buffer.subarray(end + 2);
    }
  }
}

/** A JetStream server for a test: its port and how to stop it. */
export interface ConsumerTarget {
  readonly name: string;
  readonly port: number;
  stop(): Promise<void>;
}

export async function startReference(): Promise<ConsumerTarget> {
  const server = await startNatsServer({ jetstream: true });
  return { name: 'nats-server', port: server.port, stop: () => server.stop() };
}

/** Ours in-process on `storeDir`, which outlives it (a restart test starts another on it). */
export function startOursOn(storeDir: string): Promise<NatsServer> {
  return startServer({ host: '127.0.0.1', port: 0, jetstream: { storeDir }, logger: silentLogger });
}

/** Ours in-process, on a fresh store directory. */
export async function startOurs(): Promise<ConsumerTarget> {
  const storeDir = await mkdtemp(join(tmpdir(), 'slipstream-consumers-'));
  const server = await startOursOn(storeDir);
  return {
    name: 'slipstream',
    port: server.port,
    stop: async () => {
      await server.close();
      await rm(storeDir, { recursive: true, force: true });
    },
  };
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
