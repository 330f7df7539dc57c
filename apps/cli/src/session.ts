import { readFile } from 'node:fs/promises';
import type { ConnectionOptions, NatsConnection, TlsOptions } from '@slipstream/client';
import type { JetStreamClient, JetStreamManager } from '@slipstream/jetstream';
import type { Command } from 'commander';
import { type ContextSettings, ContextStore, contextSettingNames } from './contexts.js';
import { credsFileAuthenticator } from './creds-file.js';
import { parseDuration } from './units.js';

/** The options every command has (the root program's), as commander hands them over. */
export interface GlobalOptions extends ContextSettings {
  context?: string;
  json?: boolean;
  timeout: string;
}

/**
 * What a running command works with: its options, the Ctrl-C signal, output, and the one
 * connection (made on first use, closed when the command ends).
 */
export class Session {
  readonly options: GlobalOptions;
  readonly signal: AbortSignal;
  /** Milliseconds to wait for a server's answer (--timeout). */
  readonly timeout: number;
  #connection: Promise<NatsConnection> | undefined;
  readonly #extraConnections: Array<Promise<NatsConnection>> = [];

  constructor(command: Command, signal: AbortSignal) {
    this.options = command.optsWithGlobals<GlobalOptions>();
    this.signal = signal;
    this.timeout = parseDuration(this.options.timeout);
  }

  get json(): boolean {
    return this.options.json === true;
  }

  /** A line of results on stdout. */
  out(text: string): void {
    process.stdout.write(`${text}\n`);
  }

  /** A line of progress or status on stderr, so that stdout stays the results alone. */
  note(text: string): void {
    process.stderr.write(`${text}\n`);
  }

  printJson(value: unknown): void {
    this.out(JSON.stringify(value, null, 2));
  }

  connect(): Promise<NatsConnection> {
    this.#connection ??= this.#open();
    return this.#connection;
  }

  /** Another connection with the same settings (a benchmark's clients), closed with the first. */
  connectAnother(): Promise<NatsConnection> {
    const connection = this.#open();
    this.#extraConnections.push(connection);
    return connection;
  }

  // The client loads with the first connection, so that a command making none (`slip context`)
  // starts without it.
  async #open(): Promise<NatsConnection> {
    const options = await this.#settings().then(connectionOptions);
    const { connect } = await import('@slipstream/client');
    return connect(options);
  }

  // The JetStream modules (their zod schemas above all) load on first use, so that the core
  // commands start faster.
  async jsm(): Promise<JetStreamManager> {
    const { jetstreamManager } = await import('@slipstream/jetstream');
    return jetstreamManager(await this.connect(), { timeout: this.timeout });
  }

  /** A JetStream client on `nc`, by default the command's connection. */
  async jetstream(nc?: NatsConnection): Promise<JetStreamClient> {
    const { jetstream } = await import('@slipstream/jetstream');
    return jetstream(nc ?? (await this.connect()), { timeout: this.timeout });
  }

  /** The connection settings: flags, then environment variables (both through commander), then the context. */
  async #settings(): Promise<ContextSettings & { timeout: number }> {
    const store = new ContextStore();
    const name = this.options.context ?? process.env.NATS_CONTEXT ?? (await store.selected());
    const saved = name ? await store.load(name) : {};
    const settings: ContextSettings & { timeout: number } = { timeout: this.timeout };
    for (const key of contextSettingNames) settings[key] = this.options[key] ?? saved[key];
    return settings;
  }

  /** Flushes what was published and closes the connections that were made. */
  async close(): Promise<void> {
    const opened = [this.#connection, ...this.#extraConnections];
    await Promise.all(
      opened.map(async (pending) => {
        const connection = await pending?.catch(() => undefined);
        if (connection && !connection.isClosed()) {
          await connection.drain().catch(() => connection.close());
        }
      }),
    );
  }
}

async function connectionOptions(
  settings: ContextSettings & { timeout: number },
): Promise<ConnectionOptions> {
  const options: ConnectionOptions = {
    name: 'slip',
    servers: (settings.server ?? '127.0.0.1:4222').split(',').map((s) => s.trim()),
    timeout: settings.timeout,
  };
  if (settings.user !== undefined) options.user = settings.user;
  if (settings.password !== undefined) options.pass = settings.password;
  if (settings.token !== undefined) options.token = settings.token;
  if (settings.creds) options.authenticator = await credsFileAuthenticator(settings.creds);
  if (settings.nkey) {
    const seed = (await readFile(settings.nkey, 'utf8')).trim();
    const { nkeyAuthenticator } = await import('@slipstream/client');
    options.authenticator = nkeyAuthenticator(seed);
  }
  if (settings.tlscert || settings.tlskey || settings.tlsca) {
    const tls: TlsOptions = {};
    if (settings.tlscert) tls.cert = await readFile(settings.tlscert);
    if (settings.tlskey) tls.key = await readFile(settings.tlskey);
    if (settings.tlsca) tls.ca = await readFile(settings.tlsca);
    options.tls = tls;
  }
  return options;
}
