import type { KV, KvEntry, Kvm, KvStatus } from '@slipstream/jetstream/kv';
import { type Command, Option } from 'commander';
import { type Act, example } from '../command-kit.js';
import { confirmed } from '../confirm.js';
import { aborted } from '../interrupt.js';
import { bodyOrStdin } from '../message-options.js';
import type { Session } from '../session.js';
import { color, section, table } from '../style.js';
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

async function kvm(session: Session): Promise<Kvm> {
  const { Kvm } = await import('@slipstream/jetstream/kv');
  return new Kvm(await session.jetstream());
}

async function openBucket(session: Session, bucket: string): Promise<KV> {
  return (await kvm(session)).open(bucket);
}

/** `slip kv ...`: key-value buckets, with the commands and arguments of `nats kv`. */
export function registerKv(program: Command, act: Act): void {
  const kv = program.command('kv').description('key-value buckets');

  example(
    kv
      .command('add <bucket>')
      .alias('create-bucket')
      .description('create a bucket (an existing one is left as it is)')
      .option('--history <n>', 'values kept per key (1 to 64)', '1')
      .option('--ttl <duration>', 'how long a value lives (default: forever)')
      .option('--max-value-size <size>', 'largest value (-1: unlimited)')
      .option('--max-bucket-size <size>', 'most bytes in the bucket (-1: unlimited)')
      .addOption(
        new Option('--storage <type>', 'where values are kept')
          .choices(['file', 'memory'])
          .default('file'),
      )
      .option('--replicas <n>', 'how many servers keep a copy', '1')
      .option('--description <text>', 'what the bucket is for'),
    'slip kv add CFG --history 5 --ttl 1d',
  ).action(
    act(
      async (
        session,
        bucket: string,
        options: {
          history: string;
          ttl?: string;
          maxValueSize?: string;
          maxBucketSize?: string;
          storage: 'file' | 'memory';
          replicas: string;
          description?: string;
        },
      ) => {
        const created = await (await kvm(session)).create(bucket, {
          history: parseInteger(options.history, 1),
          storage: options.storage,
          replicas: parseInteger(options.replicas, 1),
          ...(options.ttl ? { ttl: parseDuration(options.ttl) } : {}),
          ...(options.maxValueSize ? { maxValueSize: parseSize(options.maxValueSize) } : {}),
          ...(options.maxBucketSize ? { max_bytes: parseSize(options.maxBucketSize) } : {}),
          ...(options.description ? { description: options.description } : {}),
        });
        await printStatus(session, await created.status());
      },
    ),
  );

  example(
    kv
      .command('put <bucket> <key> [value]')
      .description('set a key (the value, or stdin) and print the value'),
    'slip kv put CFG color blue',
  ).action(
    act(async (session, bucket: string, key: string, value: string | undefined) => {
      const data = await bodyOrStdin(value);
      const revision = await (await openBucket(session, bucket)).put(key, data);
      if (session.json) return session.printJson({ bucket, key, revision });
      session.out(data);
    }),
  );

  example(
    kv
      .command('get <bucket> <key>')
      .description('the value of a key')
      .option('--revision <n>', 'this revision of the key instead of the last')
      .option('--raw', 'print only the value'),
    'slip kv get CFG color --raw',
  ).action(
    act(
      async (
        session,
        bucket: string,
        key: string,
        options: { revision?: string; raw?: boolean },
      ) => {
        const kvBucket = await openBucket(session, bucket);
        const entry = await kvBucket.get(
          key,
          options.revision ? { revision: parseInteger(options.revision, 1) } : undefined,
        );
        if (entry?.operation !== 'PUT')
          throw new UsageError(`key "${key}" not found in bucket ${bucket}`);
        if (session.json) return session.printJson(entryJson(entry));
        if (options.raw) return session.out(entry.string());
        session.out(
          `${color.bold(`${bucket} > ${key}`)} revision ${entry.revision} created @ ${entry.created.toISOString()}\n\n${entry.string()}\n`,
        );
      },
    ),
  );

  example(
    kv
      .command('create <bucket> <key> [value]')
      .description('set a key only if it has no value yet'),
    'slip kv create CFG color blue',
  ).action(
    act(async (session, bucket: string, key: string, value: string | undefined) => {
      const data = await bodyOrStdin(value);
      const revision = await (await openBucket(session, bucket))
        .create(key, data)
        .catch(async (error: unknown) => {
          const { JetStreamApiCodes, JetStreamApiError } = await import('@slipstream/jetstream');
          // The server's words for it are "wrong last sequence": say what that means here.
          if (
            error instanceof JetStreamApiError &&
            error.code === JetStreamApiCodes.StreamWrongLastSequence
          ) {
            throw new UsageError(`key "${key}" already has a value in bucket ${bucket}`);
          }
          throw error;
        });
      if (session.json) return session.printJson({ bucket, key, revision });
      session.out(data);
    }),
  );

  example(
    kv
      .command('update <bucket> <key> <value> <revision>')
      .description('set a key only if its last revision is the one given'),
    'slip kv update CFG color red 3',
  ).action(
    act(async (session, bucket: string, key: string, value: string, revision: string) => {
      const next = await (await openBucket(session, bucket)).update(
        key,
        value,
        parseInteger(revision, 0),
      );
      if (session.json) return session.printJson({ bucket, key, revision: next });
      session.out(value);
    }),
  );

  for (const [name, description, verb] of [
    ['del', 'delete a key (its history stays)', 'delete'],
    ['purge', 'delete a key and its history', 'purge'],
  ] as const) {
    example(
      kv
        .command(`${name} <bucket> <key>`)
        .description(description)
        .option('-f, --force', 'do not ask for confirmation'),
      `slip kv ${name} CFG color -f`,
    ).action(
      act(async (session, bucket: string, key: string, options: { force?: boolean }) => {
        const kvBucket = await openBucket(session, bucket);
        if (!(await confirmed(`${verb} key ${bucket} > ${key}`, options.force))) return;
        await kvBucket[verb](key);
        session.note(`${verb === 'delete' ? 'Deleted' : 'Purged'} key ${bucket} > ${key}`);
      }),
    );
  }

  example(
    kv.command('history <bucket> <key>').description('every value kept of a key'),
    'slip kv history CFG color',
  ).action(
    act(async (session, bucket: string, key: string) => {
      const entries: KvEntry[] = [];
      for await (const entry of await (await openBucket(session, bucket)).history({ key }))
        entries.push(entry);
      if (session.json) return session.printJson(entries.map(entryJson));
      session.out(
        table(
          ['Key', 'Revision', 'Op', 'Created', 'Length', 'Value'],
          entries.map((e) => [
            e.key,
            e.revision,
            e.operation,
            e.created.toISOString(),
            e.length,
            e.string(),
          ]),
          `History for ${bucket} > ${key}`,
        ),
      );
    }),
  );

  example(
    kv
      .command('watch <bucket> [key]')
      .description(
        'print the values of the keys (wildcards allowed), then every change, until Ctrl-C',
      ),
    'slip kv watch CFG "color.*"',
  ).action(
    act(async (session, bucket: string, key: string | undefined) => {
      const watcher = await (await openBucket(session, bucket)).watch(key ? { key } : {});
      const printing = (async () => {
        for await (const e of watcher) {
          if (session.json) session.out(JSON.stringify(entryJson(e)));
          else
            session.out(
              `[${e.created.toISOString()}] ${e.operation} ${bucket} > ${e.key}${e.operation === 'PUT' ? `: ${e.string()}` : ''}`,
            );
        }
      })();
      await Promise.race([printing, aborted(session.signal)]);
      watcher.stop();
    }),
  );

  example(
    kv.command('ls [bucket]').alias('list').description('the buckets, or the keys of a bucket'),
    'slip kv ls',
    'slip kv ls CFG',
  ).action(
    act(async (session, bucket: string | undefined) => {
      if (bucket) {
        const keys: string[] = [];
        for await (const key of await (await openBucket(session, bucket)).keys()) keys.push(key);
        keys.sort();
        if (session.json) return session.printJson(keys);
        return keys.length
          ? session.out(keys.join('\n'))
          : session.note(`No keys in bucket ${bucket}`);
      }
      const buckets: KvStatus[] = [];
      for await (const status of (await kvm(session)).list()) buckets.push(status);
      buckets.sort((a, b) => a.bucket.localeCompare(b.bucket));
      if (session.json) return session.printJson(buckets.map(({ streamInfo: _, ...rest }) => rest));
      if (buckets.length === 0) return session.note('No Key-Value buckets found');
      session.out(
        table(
          ['Bucket', 'Description', 'Created', 'Size', 'Values', 'History', 'TTL'],
          buckets.map((b) => [
            b.bucket,
            b.description,
            formatTimestamp(b.streamInfo.created),
            formatBytes(b.size),
            formatCount(b.values),
            b.history,
            b.ttl ? formatDuration(b.ttl) : 'forever',
          ]),
          'Key-Value Buckets',
        ),
      );
    }),
  );

  example(
    kv.command('status <bucket>').alias('info').description('the settings and size of a bucket'),
    'slip kv status CFG',
  ).action(
    act(async (session, bucket: string) =>
      printStatus(session, await (await openBucket(session, bucket)).status()),
    ),
  );

  example(
    kv
      .command('rm <bucket>')
      .description('delete a bucket and all its keys')
      .option('-f, --force', 'do not ask for confirmation'),
    'slip kv rm CFG -f',
  ).action(
    act(async (session, bucket: string, options: { force?: boolean }) => {
      const kvBucket = await openBucket(session, bucket);
      if (!(await confirmed(`delete bucket ${bucket}`, options.force))) return;
      await kvBucket.destroy();
      session.note(`Deleted bucket ${bucket}`);
    }),
  );
}

function entryJson(e: KvEntry) {
  return {
    bucket: e.bucket,
    key: e.key,
    revision: e.revision,
    operation: e.operation,
    created: e.created.toISOString(),
    value: e.string(),
  };
}

async function printStatus(session: Session, status: KvStatus): Promise<void> {
  const { streamInfo, ...rest } = status;
  if (session.json) return session.printJson(rest);
  session.out(
    section(
      `Information for Key-Value Store Bucket ${status.bucket} created ${streamInfo.created}`,
      [
        ['Description', status.description],
        ['Bucket Name', status.bucket],
        ['History Kept', status.history],
        ['Values Stored', formatCount(status.values)],
        ['Maximum Age', status.ttl ? formatDuration(status.ttl) : 'forever'],
        ['Maximum Bucket Size', formatBytes(status.max_bytes)],
        ['Maximum Value Size', formatBytes(status.maxValueSize)],
        ['Storage', status.storage],
        ['Replicas', status.replicas],
        ['Backing Store', `JetStream stream ${streamInfo.config.name}`],
        ['Size', formatBytes(status.size)],
      ],
    ),
  );
}
