import { createReadStream, createWriteStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type {
  ObjectInfo,
  ObjectStore,
  ObjectStoreStatus,
  Objm,
} from '@slipstream/jetstream/objectstore';
import { type Command, Option } from 'commander';
import { type Act, example } from '../command-kit.js';
import { confirmed } from '../confirm.js';
import { aborted } from '../interrupt.js';
import { progressBar } from '../progress.js';
import type { Session } from '../session.js';
import { section, table } from '../style.js';
import {
  formatBytes,
  formatCount,
  formatDuration,
  formatTimestamp,
  parseDuration,
  parseInteger,
  parseSize,
} from '../units.js';
import { UsageError } from '../usage-error.js';

/** With `serverApi`, the stores use our server's `$OBJ` object store API (see its README). */
async function objm(session: Session, serverApi = false): Promise<Objm> {
  const { Objm } = await import('@slipstream/jetstream/objectstore');
  const connection = await session.connect();
  return new Objm(await session.jetstream(connection), { serverApi, connection });
}

async function openStore(
  session: Session,
  bucket: string,
  serverApi = false,
): Promise<ObjectStore> {
  return (await objm(session, serverApi)).open(bucket);
}

const SERVER_API_HELP = "by request to the server's $OBJ object store API (slipstream-server only)";

/** `slip obj ...`: object store buckets, with the commands and arguments of `nats object`. */
export function registerObj(program: Command, act: Act): void {
  const obj = program.command('obj').alias('object').description('object store buckets');

  example(
    obj
      .command('add <bucket>')
      .description('create a bucket (an existing one is left as it is)')
      .option('--ttl <duration>', 'how long an object lives (default: forever)')
      .option('--max-bucket-size <size>', 'most bytes in the bucket (-1: unlimited)')
      .addOption(
        new Option('--storage <type>', 'where objects are kept')
          .choices(['file', 'memory'])
          .default('file'),
      )
      .option('--replicas <n>', 'how many servers keep a copy', '1')
      .option('--description <text>', 'what the bucket is for'),
    'slip obj add FILES --description "build artifacts"',
  ).action(
    act(
      async (
        session,
        bucket: string,
        options: {
          ttl?: string;
          maxBucketSize?: string;
          storage: 'file' | 'memory';
          replicas: string;
          description?: string;
        },
      ) => {
        const store = await (await objm(session)).create(bucket, {
          storage: options.storage,
          replicas: parseInteger(options.replicas, 1),
          ...(options.ttl ? { ttl: parseDuration(options.ttl) } : {}),
          ...(options.maxBucketSize ? { max_bytes: parseSize(options.maxBucketSize) } : {}),
          ...(options.description ? { description: options.description } : {}),
        });
        printStatus(session, await store.status());
      },
    ),
  );

  example(
    obj
      .command('put <bucket> <file>')
      .description('store a file, streamed in chunks (a progress bar at a terminal)')
      .option('--name <name>', 'the object name (default: the file name)')
      .option('--description <text>', 'what the object is')
      .option(
        '--server-assembled',
        'send the metadata and the chunks; the server hashes and stores them ($OBJ API, slipstream-server only)',
      ),
    'slip obj put FILES ./build/app.tar.gz --name app-1.2.tar.gz',
  ).action(
    act(
      async (
        session,
        bucket: string,
        file: string,
        options: { name?: string; description?: string; serverAssembled?: boolean },
      ) => {
        const { size } = await stat(file);
        const store = await openStore(session, bucket, options.serverAssembled);
        const progress = session.json ? undefined : progressBar('Uploading', size);
        const counted = Readable.from(
          countBytes(createReadStream(file), (n) => progress?.increment(n)),
        );
        const info = await store.put(
          {
            name: options.name ?? basename(file),
            ...(options.description ? { description: options.description } : {}),
          },
          Readable.toWeb(counted) as ReadableStream<Uint8Array>,
          { size },
        );
        progress?.stop();
        if (session.json) return session.printJson(info);
        session.out(formatObjectInfo(info));
      },
    ),
  );

  example(
    obj
      .command('get <bucket> <name>')
      .description(
        'write an object to a file (a progress bar at a terminal); its size and digest are checked',
      )
      .option(
        '-O, --output <file>',
        'where to write it: a file, or - for stdout (default: the object name)',
      )
      .option('--server-api', SERVER_API_HELP),
    'slip obj get FILES app-1.2.tar.gz -O /tmp/app.tar.gz',
  ).action(
    act(
      async (
        session,
        bucket: string,
        name: string,
        options: { output?: string; serverApi?: boolean },
      ) => {
        const result = await (await openStore(session, bucket, options.serverApi)).get(name);
        if (!result) throw new UsageError(`no object "${name}" in bucket ${bucket}`);
        const target = options.output ?? basename(name);
        const progress =
          target === '-' || session.json ? undefined : progressBar('Downloading', result.info.size);
        const chunks = countBytes(result.data as unknown as AsyncIterable<Uint8Array>, (n) =>
          progress?.increment(n),
        );
        const out = target === '-' ? process.stdout : createWriteStream(target);
        // stdout stays open for whatever else is printed; a file is closed.
        await pipeline(Readable.from(chunks), out, { end: target !== '-' });
        const error = await result.error;
        progress?.stop();
        if (error) throw error;
        if (target !== '-') session.note(`Wrote ${formatBytes(result.info.size)} to ${target}`);
      },
    ),
  );

  example(
    obj
      .command('ls [bucket]')
      .alias('list')
      .description('the buckets, or the objects of a bucket')
      .option('--server-api', `the objects ${SERVER_API_HELP}`),
    'slip obj ls FILES',
  ).action(
    act(async (session, bucket: string | undefined, options: { serverApi?: boolean }) => {
      if (bucket) {
        const store = await openStore(session, bucket, options.serverApi);
        const objects = (await store.list()).sort((a, b) => a.name.localeCompare(b.name));
        if (session.json) return session.printJson(objects);
        if (objects.length === 0) return session.note(`No objects in bucket ${bucket}`);
        return session.out(
          table(
            ['Name', 'Size', 'Time'],
            objects.map((o) => [o.name, formatBytes(o.size), formatTimestamp(o.mtime)]),
            `Bucket ${bucket}`,
          ),
        );
      }
      const buckets: ObjectStoreStatus[] = [];
      for await (const status of (await objm(session)).list()) buckets.push(status);
      buckets.sort((a, b) => a.bucket.localeCompare(b.bucket));
      if (session.json) return session.printJson(buckets.map(({ streamInfo: _, ...rest }) => rest));
      if (buckets.length === 0) return session.note('No Object Store buckets found');
      session.out(
        table(
          ['Bucket', 'Description', 'Created', 'Size', 'Sealed'],
          buckets.map((b) => [
            b.bucket,
            b.description,
            formatTimestamp(b.streamInfo.created),
            formatBytes(b.size),
            b.sealed ? 'yes' : 'no',
          ]),
          'Object Store Buckets',
        ),
      );
    }),
  );

  example(
    obj
      .command('info <bucket> [name]')
      .description("an object's info, or the bucket's status without a name")
      .option('--server-api', `the object's info ${SERVER_API_HELP}`),
    'slip obj info FILES app.tar.gz',
  ).action(
    act(
      async (
        session,
        bucket: string,
        name: string | undefined,
        options: { serverApi?: boolean },
      ) => {
        const store = await openStore(session, bucket, options.serverApi);
        if (!name) return printStatus(session, await store.status());
        const info = await store.info(name);
        if (!info || info.deleted) throw new UsageError(`no object "${name}" in bucket ${bucket}`);
        if (session.json) return session.printJson(info);
        session.out(formatObjectInfo(info));
      },
    ),
  );

  example(
    obj.command('status <bucket>').description('the settings and size of a bucket'),
    'slip obj status FILES',
  ).action(
    act(async (session, bucket: string) =>
      printStatus(session, await (await openStore(session, bucket)).status()),
    ),
  );

  example(
    obj
      .command('rm <bucket> [name]')
      .description('delete an object, or the whole bucket without a name')
      .option('-f, --force', 'do not ask for confirmation')
      .option('--server-api', `delete the object ${SERVER_API_HELP}`),
    'slip obj rm FILES app.tar.gz -f',
  ).action(
    act(
      async (
        session,
        bucket: string,
        name: string | undefined,
        options: { force?: boolean; serverApi?: boolean },
      ) => {
        const store = await openStore(session, bucket, options.serverApi);
        const what = name ? `delete object ${bucket} > ${name}` : `delete bucket ${bucket}`;
        if (!(await confirmed(what, options.force))) return;
        if (name) await store.delete(name);
        else await store.destroy();
        session.note(name ? `Deleted object ${bucket} > ${name}` : `Deleted bucket ${bucket}`);
      },
    ),
  );

  example(
    obj
      .command('seal <bucket>')
      .description('make a bucket read-only, for good')
      .option('-f, --force', 'do not ask for confirmation'),
    'slip obj seal FILES -f',
  ).action(
    act(async (session, bucket: string, options: { force?: boolean }) => {
      const store = await openStore(session, bucket);
      if (!(await confirmed(`seal bucket ${bucket}`, options.force))) return;
      await store.seal();
      session.note(`Sealed bucket ${bucket}`);
    }),
  );

  example(
    obj.command('watch <bucket>').description('print the objects, then every change, until Ctrl-C'),
    'slip obj watch FILES',
  ).action(
    act(async (session, bucket: string) => {
      const watcher = await (await openStore(session, bucket)).watch();
      const printing = (async () => {
        for await (const info of watcher) {
          if (session.json) session.out(JSON.stringify(info));
          else
            session.out(
              `[${info.mtime}] ${info.deleted ? 'DEL' : 'PUT'} ${bucket} > ${info.name}${info.deleted ? '' : `: ${formatBytes(info.size)}`}`,
            );
        }
      })();
      await Promise.race([printing, aborted(session.signal)]);
      watcher.stop();
    }),
  );
}

/** Passes the chunks on, telling `count` the size of each. */
async function* countBytes(
  source: AsyncIterable<Uint8Array>,
  count: (bytes: number) => void,
): AsyncIterable<Uint8Array> {
  for await (const chunk of source) {
    count(chunk.length);
    yield chunk;
  }
}

function formatObjectInfo(info: ObjectInfo): string {
  return section(`Object information for ${info.bucket} > ${info.name}`, [
    ['Description', info.description],
    ['Size', formatBytes(info.size)],
    ['Modification Time', info.mtime],
    ['Chunks', formatCount(info.chunks)],
    ['Digest', info.digest],
    [
      'Link',
      info.options?.link
        ? `${info.options.link.bucket}${info.options.link.name ? ` > ${info.options.link.name}` : ''}`
        : undefined,
    ],
  ]);
}

function printStatus(session: Session, status: ObjectStoreStatus): void {
  const { streamInfo, ...rest } = status;
  if (session.json) {
    session.printJson(rest);
    return;
  }
  session.out(
    section(`Information for Object Store Bucket ${status.bucket} created ${streamInfo.created}`, [
      ['Description', status.description],
      ['Maximum Age', status.ttl ? formatDuration(status.ttl) : 'forever'],
      ['Storage', status.storage],
      ['Replicas', status.replicas],
      ['Sealed', status.sealed ? 'yes' : 'no'],
      ['Size', formatBytes(status.size)],
      ['Backing Store', `JetStream stream ${streamInfo.config.name}`],
    ]),
  );
}
