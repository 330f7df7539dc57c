import { readFile } from 'node:fs/promises';
import type { StreamConfig } from '@slipstream/jetstream';
import { type Command, Option } from 'commander';
import { askNumber } from './ask-number.js';
import { collect } from './message-options.js';
import { formatDuration, parseDuration, parseInteger, parseSize } from './units.js';

/** The flags of `stream add` and `stream edit`, as commander hands them over. */
export interface StreamConfigFlags {
  subjects?: string[];
  storage?: string;
  replicas?: string;
  retention?: string;
  discard?: string;
  maxMsgs?: string;
  maxMsgsPerSubject?: string;
  maxBytes?: string;
  maxAge?: string;
  maxMsgSize?: string;
  maxConsumers?: string;
  dupeWindow?: string;
  description?: string;
  allowRollup?: boolean;
  denyDelete?: boolean;
  denyPurge?: boolean;
  allowDirect?: boolean;
  persistMode?: string;
  allowCounter?: boolean;
  allowSchedules?: boolean;
  allowBatch?: boolean;
  config?: string;
}

const retentions: Record<string, StreamConfig['retention']> = {
  limits: 'limits',
  interest: 'interest',
  work: 'workqueue',
  workq: 'workqueue',
  workqueue: 'workqueue',
};

/** Adds the stream configuration flags, named as `nats stream add` names them. */
export function streamConfigOptions(command: Command): Command {
  return command
    .option(
      '--subjects <subjects>',
      'subjects the stream stores, comma separated (repeatable)',
      collect,
    )
    .addOption(
      new Option('--storage <type>', 'where messages are kept').choices(['file', 'memory']),
    )
    .option('--replicas <n>', 'how many servers keep a copy')
    .addOption(
      new Option('--retention <policy>', 'when messages are removed').choices(
        Object.keys(retentions),
      ),
    )
    .addOption(
      new Option('--discard <policy>', 'what goes when the stream is full').choices(['old', 'new']),
    )
    .option('--max-msgs <n>', 'most messages kept (-1: unlimited)')
    .option('--max-msgs-per-subject <n>', 'most messages kept per subject (-1: unlimited)')
    .option('--max-bytes <size>', 'most bytes kept, e.g. 1GB (-1: unlimited)')
    .option('--max-age <duration>', 'oldest message kept, e.g. 1d (0 or -1: unlimited)')
    .option('--max-msg-size <size>', 'largest message accepted (-1: unlimited)')
    .option('--max-consumers <n>', 'most consumers (-1: unlimited)')
    .option('--dupe-window <duration>', 'how long message ids are remembered to drop duplicates')
    .option('--description <text>', 'what the stream is for')
    .option('--allow-rollup', 'allow Nats-Rollup headers to purge older messages')
    .option('--no-allow-rollup', 'refuse Nats-Rollup headers')
    .option('--deny-delete', 'forbid deleting single messages')
    .option('--no-deny-delete', 'allow deleting single messages')
    .option('--deny-purge', 'forbid purging')
    .option('--no-deny-purge', 'allow purging')
    .option('--allow-direct', 'answer direct get requests')
    .option('--no-allow-direct', 'do not answer direct get requests')
    .option('--allow-counter', 'make the stream a distributed counter (nats-server 2.12+)')
    .option('--allow-schedules', 'allow message schedules (nats-server 2.12+)')
    .option('--no-allow-schedules', 'refuse message schedules')
    .option('--allow-batch', 'allow atomic batch publishing (nats-server 2.12+)')
    .option('--no-allow-batch', 'refuse atomic batches')
    .addOption(
      new Option(
        '--persist-mode <mode>',
        'async: acknowledge before the disk sync (file streams, nats-server 2.12+)',
      ).choices(['default', 'async']),
    )
    .option('--config <file>', 'read the configuration from a JSON file (flags override it)');
}

/** What the flags set, and only that: `stream edit` changes exactly these fields. */
export async function streamConfigFromFlags(
  flags: StreamConfigFlags,
): Promise<Partial<StreamConfig>> {
  const config: Partial<StreamConfig> = flags.config
    ? JSON.parse(await readFile(flags.config, 'utf8'))
    : {};
  if (flags.subjects)
    config.subjects = flags.subjects
      .flatMap((s) => s.split(','))
      .map((s) => s.trim())
      .filter(Boolean);
  if (flags.storage) config.storage = flags.storage as StreamConfig['storage'];
  if (flags.replicas) config.num_replicas = parseInteger(flags.replicas, 1);
  if (flags.retention) config.retention = retentions[flags.retention];
  if (flags.discard) config.discard = flags.discard as StreamConfig['discard'];
  if (flags.maxMsgs) config.max_msgs = parseInteger(flags.maxMsgs, -1);
  if (flags.maxMsgsPerSubject)
    config.max_msgs_per_subject = parseInteger(flags.maxMsgsPerSubject, -1);
  if (flags.maxBytes) config.max_bytes = parseSize(flags.maxBytes);
  if (flags.maxAge) config.max_age = nanosOrUnlimited(flags.maxAge);
  if (flags.maxMsgSize) config.max_msg_size = parseSize(flags.maxMsgSize);
  if (flags.maxConsumers) config.max_consumers = parseInteger(flags.maxConsumers, -1);
  if (flags.dupeWindow) config.duplicate_window = parseDuration(flags.dupeWindow) * 1e6;
  if (flags.description !== undefined) config.description = flags.description;
  if (flags.allowRollup !== undefined) config.allow_rollup_hdrs = flags.allowRollup;
  if (flags.denyDelete !== undefined) config.deny_delete = flags.denyDelete;
  if (flags.denyPurge !== undefined) config.deny_purge = flags.denyPurge;
  if (flags.allowDirect !== undefined) config.allow_direct = flags.allowDirect;
  if (flags.allowCounter !== undefined) config.allow_msg_counter = flags.allowCounter;
  if (flags.allowSchedules !== undefined) config.allow_msg_schedules = flags.allowSchedules;
  if (flags.allowBatch !== undefined) config.allow_atomic = flags.allowBatch;
  if (flags.persistMode) config.persist_mode = flags.persistMode as StreamConfig['persist_mode'];
  return config;
}

function nanosOrUnlimited(text: string): number {
  return text.trim() === '-1' ? 0 : Math.round(parseDuration(text) * 1e6);
}

/**
 * Asks, at a terminal, for each setting of a new stream that no flag gave, offering the
 * server's default (Enter takes it), in the order `nats stream add` asks.
 */
export async function promptStreamConfig(
  name: string | undefined,
  given: Partial<StreamConfig>,
): Promise<StreamConfig> {
  const { confirm, input, select } = await import('@inquirer/prompts');
  const config = { ...given } as StreamConfig;
  config.name = name ?? (await input({ message: 'Stream Name', required: true }));
  config.subjects ??= (await input({ message: 'Subjects', default: config.name }))
    .split(/[,\s]+/)
    .filter(Boolean);
  config.storage ??= await select({
    message: 'Storage',
    choices: [
      { name: 'file', value: 'file' as const },
      { name: 'memory', value: 'memory' as const },
    ],
  });
  config.num_replicas ??= await askNumber('Replication', '1', (t) => parseInteger(t, 1));
  config.retention ??= await select({
    message: 'Retention Policy',
    choices: [
      { name: 'Limits', value: 'limits' as const },
      { name: 'Interest', value: 'interest' as const },
      { name: 'Work Queue', value: 'workqueue' as const },
    ],
  });
  config.discard ??= await select({
    message: 'Discard Policy',
    choices: [
      { name: 'Old', value: 'old' as const },
      { name: 'New', value: 'new' as const },
    ],
  });
  config.max_msgs ??= await askNumber('Stream Messages Limit', '-1', (t) => parseInteger(t, -1));
  config.max_msgs_per_subject ??= await askNumber('Per Subject Messages Limit', '-1', (t) =>
    parseInteger(t, -1),
  );
  config.max_bytes ??= await askNumber('Total Stream Size', '-1', parseSize);
  config.max_age ??= await askNumber('Message TTL', '-1', nanosOrUnlimited);
  config.max_msg_size ??= await askNumber('Max Message Size', '-1', parseSize);
  config.duplicate_window ??= await askNumber(
    'Duplicate tracking time window',
    formatDuration(120_000),
    (t) => parseDuration(t) * 1e6,
  );
  config.allow_rollup_hdrs ??= await confirm({ message: 'Allow message Roll-ups', default: false });
  config.deny_delete ??= !(await confirm({ message: 'Allow message deletion', default: true }));
  config.deny_purge ??= !(await confirm({
    message: 'Allow purging subjects or the entire stream',
    default: true,
  }));
  return config;
}
