/**
 * `slip stream backup` and `slip stream restore`: JetStream's snapshot and restore protocol,
 * spoken here because the JetStream client has no API for it. A backup directory has the layout
 * `nats stream backup` writes, so either tool restores the other's backups: the server's archive
 * exactly as it arrived (nats-server sends an s2-compressed tar, slipstream-server an archive of
 * its own; the CLI never looks inside) and the stream's configuration and state in JSON.
 */
import { createWriteStream } from 'node:fs';
import { mkdir, open, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { StreamConfig, StreamInfo, StreamState } from '@slipstream/jetstream';
import type { Command } from 'commander';
import { type Act, example } from '../command-kit.js';
import { apiCall, apiReply } from '../jetstream-api-call.js';
import { progressBar, silentProgress } from '../progress.js';
import type { Session } from '../session.js';
import { formatStreamInfo } from '../stream-info-view.js';
import { formatBytes, formatCount, formatDuration, parseSize } from '../units.js';
import { UsageError } from '../usage-error.js';

/** The archive and the metadata, named as the nats CLI names them. */
const DATA_FILE = 'stream.tar.s2';
const METADATA_FILE = 'backup.json';
/** The nats CLI uploads a restore in chunks of 128 KiB, each acknowledged before the next. */
const UPLOAD_CHUNK_SIZE = 128 * 1024;
/** A snapshot that sends no chunk for this long has stalled (nats-server gives up after 10 s). */
const SNAPSHOT_STALL_MS = 15_000;
/** The server checks and registers the whole restored stream before it answers the last chunk. */
const RESTORE_FINISH_MS = 60_000;

/** What backup.json holds: the snapshot's answer, which the restore request sends back. */
interface BackupMetadata {
  config: StreamConfig;
  state: StreamState;
}

interface BackupFlags {
  progress: boolean;
  check?: boolean;
  consumers: boolean;
  chunkSize?: string;
}

interface RestoreFlags {
  progress: boolean;
  config?: string;
}

export function registerStreamBackup(stream: Command, act: Act): void {
  example(
    stream
      .command('backup <stream> <dir>')
      .alias('snapshot')
      .description('copy a stream (its messages, and its consumers) into a directory, over NATS')
      .option('--no-progress', 'no progress bar')
      .option('--check', 'have the server check the stream for damage before the backup')
      .option('--no-consumers', 'leave the consumers out')
      .option('--chunk-size <bytes>', 'size of the chunks the server sends (e.g. 64KB)'),
    'slip stream backup ORDERS /backups/orders',
  ).action(
    act(async (session, name: string, dir: string, flags: BackupFlags) => {
      const started = performance.now();
      const result = await backup(session, name, dir, flags);
      if (session.json) return session.printJson({ stream: name, directory: dir, ...result });
      session.out(
        `Received ${formatBytes(result.bytes)} in ${formatCount(result.chunks)} chunk${result.chunks === 1 ? '' : 's'} for stream ${name} in ${formatDuration(performance.now() - started)}, ${formatCount(result.state.messages)} messages (${formatBytes(result.state.bytes)}) written to ${dir}`,
      );
    }),
  );

  example(
    stream
      .command('restore <dir>')
      .description('create a stream again from a backup directory, over NATS')
      .option('--no-progress', 'no progress bar')
      .option('--config <file>', 'restore with this stream configuration (JSON) instead'),
    'slip stream restore /backups/orders',
  ).action(
    act(async (session, dir: string, flags: RestoreFlags) => {
      const started = performance.now();
      const info = await restore(session, dir, flags);
      if (session.json) return session.printJson(info);
      session.note(
        `Restored stream ${info.config.name} in ${formatDuration(performance.now() - started)}\n`,
      );
      session.out(formatStreamInfo(info));
    }),
  );
}

/** Receives the snapshot of `name` into `dir`: the archive's chunks as they come, then backup.json. */
async function backup(session: Session, name: string, dir: string, flags: BackupFlags) {
  // A missing stream is reported before anything is written; its size sizes the progress bar.
  const { state: current } = await (await session.jsm()).streams.info(name);
  const nc = await session.connect();
  await mkdir(dir, { recursive: true });
  const file = createWriteStream(join(dir, DATA_FILE));
  const fileClosed = new Promise<void>((resolve) => file.once('close', resolve));
  let bytes = 0;
  let chunks = 0;
  let stalled: NodeJS.Timeout | undefined;
  let finish: (error?: Error) => void = () => {};
  const finished = new Promise<void>((resolve, reject) => {
    finish = (error) => (error ? reject(error) : resolve());
  });
  // It may fail (Ctrl-C, a disk error) while the snapshot request is still out: handled there.
  finished.catch(() => {});
  file.once('error', finish);
  const watchForStall = () => {
    clearTimeout(stalled);
    stalled = setTimeout(
      () => finish(new Error(`the server sent nothing for ${SNAPSHOT_STALL_MS / 1000} s`)),
      SNAPSHOT_STALL_MS,
    );
  };
  const onAbort = () => finish(session.signal.reason as Error);
  session.signal.addEventListener('abort', onAbort, { once: true });
  // Measured against the stream's size, an estimate: nats-server's archive is compressed,
  // slipstream-server's adds its framing.
  const progress =
    flags.progress && !session.json ? progressBar('Received', current.bytes) : silentProgress;

  // Subscribed before the request, so that no chunk can arrive before anyone listens.
  const { createInbox } = await import('@slipstream/client');
  const inbox = createInbox();
  const sub = nc.subscribe(inbox, {
    callback: (error, msg) => {
      if (error) return finish(error);
      watchForStall();
      // Every chunk is acknowledged, or the server stops once its window is full.
      if (msg.reply) nc.publish(msg.reply);
      if (msg.data.length === 0 && !msg.headers) return finish();
      if (msg.headers) return; // a status message, not part of the archive
      file.write(msg.data);
      bytes += msg.data.length;
      chunks++;
      progress.increment(msg.data.length);
    },
  });
  try {
    const request: Record<string, unknown> = {
      deliver_subject: inbox,
      no_consumers: !flags.consumers,
      jsck: flags.check === true,
    };
    if (flags.chunkSize !== undefined) request.chunk_size = parseSize(flags.chunkSize);
    const { config, state } = await apiCall<BackupMetadata>(
      nc,
      `$JS.API.STREAM.SNAPSHOT.${name}`,
      request,
      session.timeout,
    );
    watchForStall();
    await finished;
    progress.complete();
    await writeFile(join(dir, METADATA_FILE), `${JSON.stringify({ config, state }, null, 2)}\n`);
    return { bytes, chunks, config, state };
  } finally {
    clearTimeout(stalled);
    session.signal.removeEventListener('abort', onAbort);
    progress.stop();
    sub.unsubscribe();
    file.end();
    await fileClosed;
  }
}

/** Uploads the archive in `dir` to a new stream and returns the restored stream's info. */
async function restore(session: Session, dir: string, flags: RestoreFlags): Promise<StreamInfo> {
  const metadata = JSON.parse(
    await readFile(join(dir, METADATA_FILE), 'utf8').catch(() => {
      throw new UsageError(`${dir} holds no ${METADATA_FILE}: not a stream backup`);
    }),
  ) as BackupMetadata;
  const config: StreamConfig = flags.config
    ? { ...JSON.parse(await readFile(flags.config, 'utf8')), name: metadata.config.name }
    : metadata.config;
  const dataFile = join(dir, DATA_FILE);
  const { size } = await stat(dataFile);
  const nc = await session.connect();
  const { deliver_subject: upload } = await apiCall<{ deliver_subject: string }>(
    nc,
    `$JS.API.STREAM.RESTORE.${config.name}`,
    { config, state: metadata.state },
    session.timeout,
  );
  const progress = flags.progress && !session.json ? progressBar('Sent', size) : silentProgress;
  const file = await open(dataFile);
  try {
    const buffer = Buffer.alloc(UPLOAD_CHUNK_SIZE);
    for (;;) {
      if (session.signal.aborted) throw session.signal.reason;
      const { bytesRead } = await file.read(buffer, 0, buffer.length);
      if (bytesRead === 0) break;
      // The server answers a chunk with an empty ack, or with the error that ended the restore.
      const ack = await nc.request(upload, buffer.subarray(0, bytesRead), {
        timeout: session.timeout,
      });
      if (ack.data.length > 0) await apiReply(ack);
      progress.increment(bytesRead);
    }
  } finally {
    progress.stop();
    await file.close();
  }
  const timeout = Math.max(session.timeout, RESTORE_FINISH_MS);
  return apiReply<StreamInfo>(await nc.request(upload, new Uint8Array(0), { timeout }));
}
