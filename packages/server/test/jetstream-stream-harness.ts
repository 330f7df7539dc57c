/**
 * Our server with JetStream on a temporary store directory, restartable on the same directory,
 * and the stream API requests the stream feature tests make over a raw connection (a JsProbe
 * that may publish headers).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect } from 'vitest';
import { type NatsServer, silentLogger, startServer } from '../src/index.js';
import { JsProbe } from './js-probe.js';

export type Answer = Record<string, unknown>;

export interface StreamServer {
  readonly storeDir: string;
  readonly probe: JsProbe;
  /** Closes the server and starts it again on the same store directory. */
  restart(): Promise<void>;
  create(config: Answer): Promise<Answer>;
  /** Creates and expects no error. */
  created(config: Answer): Promise<Answer>;
  update(config: Answer): Promise<Answer>;
  info(name: string): Promise<Answer>;
  /** The stored message at `seq` (subject, data and raw header block), or undefined. */
  message(
    stream: string,
    seq: number,
  ): Promise<{ subject: string; data: string; headers?: string } | undefined>;
}

export const configOf = (answer: Answer) => answer.config as Answer;
export const stateOf = (answer: Answer) => answer.state as Answer;
export const errorOf = (answer: Answer) =>
  answer.error as { code: number; err_code: number; description: string } | undefined;

/** A fresh server for each test of the calling file. */
export function useStreamServer(): StreamServer {
  let storeDir = '';
  let server: NatsServer | undefined;
  let probe: JsProbe | undefined;
  const start = async () => {
    server = await startServer({
      host: '127.0.0.1',
      port: 0,
      jetstream: { storeDir },
      logger: silentLogger,
    });
    probe = await JsProbe.connect(server.port, { headers: true });
  };
  const stop = async () => {
    probe?.close();
    await server?.close();
  };
  beforeEach(async () => {
    storeDir = await mkdtemp(join(tmpdir(), 'slipstream-streams-'));
    await start();
  });
  afterEach(async () => {
    await stop();
    await rm(storeDir, { recursive: true, force: true });
  });
  const request = (subject: string, body?: unknown) => probe!.request(subject, body);
  const create = (config: Answer) => request(`$JS.API.STREAM.CREATE.${config.name}`, config);
  return {
    get storeDir() {
      return storeDir;
    },
    get probe() {
      return probe!;
    },
    restart: async () => {
      await stop();
      await start();
    },
    create,
    created: async (config) => {
      const answer = await create(config);
      expect(errorOf(answer)).toBeUndefined();
      return answer;
    },
    update: (config) => request(`$JS.API.STREAM.UPDATE.${config.name}`, config),
    info: (name) => request(`$JS.API.STREAM.INFO.${name}`),
    message: async (stream, seq) => {
      const answer = await request(`$JS.API.STREAM.MSG.GET.${stream}`, { seq });
      const found = answer.message as { subject: string; data?: string; hdrs?: string } | undefined;
      if (!found) return undefined;
      const data = Buffer.from(found.data ?? '', 'base64').toString();
      return found.hdrs
        ? { subject: found.subject, data, headers: Buffer.from(found.hdrs, 'base64').toString() }
        : { subject: found.subject, data };
    },
  };
}

/** Polls `done` every 25 ms until it holds; throws after `timeoutMs`. */
export async function until(done: () => Promise<boolean>, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
