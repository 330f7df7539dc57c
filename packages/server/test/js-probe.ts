import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startNatsServer } from '@slipstream/test-servers';
import { silentLogger, startServer } from '../src/index.js';
import { RawClient } from './raw-client.js';

/** One MSG a probe received. */
export interface ReceivedMessage {
  subject: string;
  reply: string | undefined;
  data: string;
}

/**
 * A raw connection for JetStream tests: subscribes, sends API requests and reads the MSG frames
 * that come back, so a test sees exactly what the server put on the wire.
 */
export class JsProbe {
  #nextSid = 1;
  #nextInbox = 1;

  private constructor(readonly client: RawClient) {}

  /** With `headers`, the connection may publish headers (answers with headers are not read). */
  static async connect(port: number, options: { headers?: boolean } = {}): Promise<JsProbe> {
    const client = await RawClient.connectAndGreet(port);
    const headers = options.headers ? ',"headers":true' : '';
    await client.send(`CONNECT {"verbose":false,"protocol":1${headers}}\r\n`);
    return new JsProbe(client);
  }

  async subscribe(subject: string): Promise<void> {
    await this.client.send(`SUB ${subject} ${this.#nextSid++}\r\n`);
    await this.client.sync();
  }

  /** Publishes without a reply subject and waits until the server has read it. */
  async publish(subject: string, body = ''): Promise<void> {
    await this.client.send(`PUB ${subject} ${Buffer.byteLength(body)}\r\n${body}\r\n`);
    await this.client.sync();
  }

  /**
   * Sends a request (with `headers`, as an HPUB: the probe must have connected with headers)
   * and resolves with its JSON answer.
   */
  async request(
    subject: string,
    body: unknown = '',
    headers?: Record<string, string>,
  ): Promise<Record<string, unknown>> {
    const inbox = `_PROBE.${this.#nextInbox++}`;
    const text = typeof body === 'string' ? body : JSON.stringify(body);
    const size = Buffer.byteLength(text);
    const block = headers
      ? `NATS/1.0\r\n${Object.entries(headers)
          .map(([name, value]) => `${name}: ${value}\r\n`)
          .join('')}\r\n`
      : '';
    const publish = headers
      ? `HPUB ${subject} ${inbox} ${block.length} ${block.length + size}\r\n${block}`
      : `PUB ${subject} ${inbox} ${size}\r\n`;
    await this.client.send(`SUB ${inbox} ${this.#nextSid++}\r\n${publish}${text}\r\n`);
    await this.client.waitUntil(() => this.messages().some((m) => m.subject === inbox));
    return JSON.parse(this.messages().find((m) => m.subject === inbox)!.data);
  }

  /** Every MSG received so far, in order. */
  messages(): ReceivedMessage[] {
    const text = this.client.text;
    const found: ReceivedMessage[] = [];
    // nats-server writes a MSG without a reply with two spaces before the size.
    const head = /MSG (\S+) \S+ +(?:(\S+) +)?(\d+)\r\n/g;
    for (let match = head.exec(text); match; match = head.exec(text)) {
      const start = match.index + match[0].length;
      const size = Number(match[3]);
      if (start + size > text.length) break;
      // The probe reads latin1, one char a byte; the JSON inside is UTF-8.
      const data = Buffer.from(text.slice(start, start + size), 'latin1').toString('utf8');
      found.push({ subject: match[1]!, reply: match[2], data });
      head.lastIndex = start + size;
    }
    return found;
  }

  close(): void {
    this.client.close();
  }
}

/**
 * Fields that differ from run to run (ids, times) or that only nats-server knows (the
 * requester's rtt, which our server cannot see).
 */
const VARYING = new Set([
  'id',
  'server_id',
  'timestamp',
  'now',
  'created',
  'first_ts',
  'last_ts',
  'rtt',
  // When an info was gathered: nats-server 2.10 and later (stream and consumer infos).
  'ts',
]);

/**
 * Stream config fields nats-server 2.10 and 2.11 always write and 2.9.10 does not (stream.go
 * StreamConfig at v2.11.0): ours writes them whatever version it advertises, so a comparison
 * with nats-server 2.9.10 leaves them out.
 */
const NEWER_CONFIG_FIELDS = new Set([
  'compression',
  'consumer_limits',
  'allow_msg_ttl',
  // The API level leading the JetStream API statistics (2.11).
  'level',
]);

/**
 * Metadata without the `_nats.*` keys a 2.11 server sets itself (the API level a stream was made
 * at: stream.go setStaticStreamMetadata at v2.11.0); undefined when nothing else is left.
 */
function userMetadata(metadata: object): object | undefined {
  const kept = Object.entries(metadata).filter(([key]) => !key.startsWith('_nats.'));
  return kept.length ? Object.fromEntries(kept) : undefined;
}

/** A JSON value with its varying fields dropped and embedded request/response JSON parsed. */
export function comparable(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(comparable);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => !VARYING.has(key) && !NEWER_CONFIG_FIELDS.has(key))
      .map(([key, inner]): [string, unknown] =>
        key === 'metadata' && inner !== null && typeof inner === 'object'
          ? [key, userMetadata(inner)]
          : [key, inner],
      )
      .filter(([, inner]) => inner !== undefined)
      .map(([key, inner]) => [
        key,
        (key === 'request' || key === 'response') && typeof inner === 'string'
          ? comparable(JSON.parse(inner))
          : comparable(inner),
      ]),
  );
}

/** A JetStream server under test: its client port, monitoring URL and a way to stop it. */
export interface JsTarget {
  readonly port: number;
  readonly httpUrl: string;
  stop(): Promise<void>;
}

export const SERVER_NAME = 'js-probe';

/** JetStream settings both servers get, so they can be compared on the same footing. */
export interface JsSettings {
  maxMemory?: number;
  maxFile?: number;
  domain?: string;
}

/** nats-server 2.9.10 with JetStream (file store in a temporary directory) and monitoring. */
export async function startReferenceJs(settings: JsSettings = {}): Promise<JsTarget> {
  const storeDir = await mkdtemp(join(tmpdir(), 'nats-server-js-'));
  const { maxMemory, maxFile, domain } = settings;
  const block = [
    `store_dir: "${storeDir}"`,
    ...(maxMemory === undefined ? [] : [`max_memory_store: ${maxMemory}`]),
    ...(maxFile === undefined ? [] : [`max_file_store: ${maxFile}`]),
    ...(domain === undefined ? [] : [`domain: ${domain}`]),
  ];
  const server = await startNatsServer({
    monitoring: true,
    config: `server_name: ${SERVER_NAME}\njetstream { ${block.join(', ')} }`,
  });
  return {
    port: server.port,
    httpUrl: `http://127.0.0.1:${server.httpPort}`,
    stop: async () => {
      await server.stop();
      await rm(storeDir, { recursive: true, force: true });
    },
  };
}

/** Our server in-process, with JetStream on a temporary store directory and monitoring. */
export async function startOurJs(settings: JsSettings = {}): Promise<JsTarget> {
  const storeDir = await mkdtemp(join(tmpdir(), 'slipstream-js-'));
  const server = await startServer({
    host: '127.0.0.1',
    port: 0,
    httpPort: 0,
    serverName: SERVER_NAME,
    jetstream: { storeDir, ...settings },
    logger: silentLogger,
  });
  return {
    port: server.port,
    httpUrl: server.httpUrl!,
    stop: async () => {
      await server.close();
      await rm(storeDir, { recursive: true, force: true });
    },
  };
}
