import type { ConsumerConfig } from '@slipstream/jetstream';
import { type Command, Option } from 'commander';
import { parseDuration, parseInteger, parseTimeOrDuration } from './units.js';
import { UsageError } from './usage-error.js';

/** The flags of `consumer add` and `consumer edit`, as commander hands them over. */
export interface ConsumerConfigFlags {
  filter?: string;
  ack?: string;
  deliver?: string;
  replay?: string;
  maxDeliver?: string;
  maxPending?: string;
  maxWaiting?: string;
  wait?: string;
  inactiveThreshold?: string;
  description?: string;
  pull?: boolean;
  target?: string;
  deliverGroup?: string;
  heartbeat?: string;
  flowControl?: boolean;
  headersOnly?: boolean;
  pause?: string;
  pinnedGroups?: string;
  pinnedTtl?: string;
  overflowGroups?: string;
  prioritizedGroups?: string;
}

/** Adds the consumer configuration flags, named as `nats consumer add` names them. */
export function consumerConfigOptions(command: Command): Command {
  return command
    .option('--filter <subjects>', 'only messages on these subjects (comma or space separated)')
    .addOption(
      new Option('--ack <policy>', 'how messages are acknowledged').choices([
        'explicit',
        'all',
        'none',
      ]),
    )
    .option(
      '--deliver <policy>',
      'where delivery starts: all, last, new, last-per-subject, a sequence, or a duration ago (1h)',
    )
    .addOption(new Option('--replay <policy>', 'replay speed').choices(['instant', 'original']))
    .option('--max-deliver <n>', 'most deliveries of one message (-1: unlimited)')
    .option('--max-pending <n>', 'most messages delivered but not yet acknowledged')
    .option('--max-waiting <n>', 'most pull requests waiting at once')
    .option('--wait <duration>', 'how long to wait for an acknowledgement before redelivering')
    .option(
      '--inactive-threshold <duration>',
      'delete the consumer after this long without clients',
    )
    .option('--description <text>', 'what the consumer is for')
    .option('--pull', 'a pull consumer: clients fetch messages (the default without --target)')
    .option('--target <subject>', 'a push consumer: the server sends messages to this subject')
    .option('--deliver-group <group>', 'push only to subscribers of this queue group')
    .option('--heartbeat <duration>', 'push an empty status message when idle this long (-1: off)')
    .option('--flow-control', 'push consumers wait for the subscriber to keep up')
    .option('--headers-only', 'deliver the headers and the size, not the bodies')
    .option(
      '--pause <time>',
      'paused until this UTC time ("2026-12-24 18:00:00") or for this duration (nats-server 2.11+)',
    )
    .option('--pinned-groups <groups>', 'a pinned client consumer of these priority groups (2.11+)')
    .option('--pinned-ttl <duration>', 'how long a pinned client may go without pulling (2.11+)')
    .option('--overflow-groups <groups>', 'an overflow consumer of these priority groups (2.11+)')
    .option(
      '--prioritized-groups <groups>',
      'a prioritized consumer of these priority groups: pulls with a lower priority go first (2.12+)',
    );
}

/** What the flags set, and only that: `consumer edit` changes exactly these fields. */
export function consumerConfigFromFlags(flags: ConsumerConfigFlags): Partial<ConsumerConfig> {
  const config: Partial<ConsumerConfig> = {};
  if (flags.filter) Object.assign(config, filterSubjects(flags.filter));
  if (flags.ack) config.ack_policy = flags.ack as ConsumerConfig['ack_policy'];
  if (flags.deliver) Object.assign(config, deliverPolicy(flags.deliver));
  if (flags.replay) config.replay_policy = flags.replay as ConsumerConfig['replay_policy'];
  if (flags.maxDeliver) config.max_deliver = parseInteger(flags.maxDeliver, -1);
  if (flags.maxPending) config.max_ack_pending = parseInteger(flags.maxPending, -1);
  if (flags.maxWaiting) config.max_waiting = parseInteger(flags.maxWaiting, 1);
  if (flags.wait) config.ack_wait = parseDuration(flags.wait) * 1e6;
  if (flags.inactiveThreshold)
    config.inactive_threshold = parseDuration(flags.inactiveThreshold) * 1e6;
  if (flags.description !== undefined) config.description = flags.description;
  if (flags.target) config.deliver_subject = flags.target;
  if (flags.deliverGroup !== undefined) config.deliver_group = flags.deliverGroup;
  if (flags.heartbeat) config.idle_heartbeat = nanosOrOff(flags.heartbeat);
  if (flags.flowControl) config.flow_control = true;
  if (flags.headersOnly) config.headers_only = true;
  if (flags.pause) config.pause_until = parseTimeOrDuration(flags.pause).toISOString();
  Object.assign(config, priorityGroups(flags));
  return config;
}

/** `--pinned-groups`, `--overflow-groups` or `--prioritized-groups` (one of them) as the policy. */
function priorityGroups(flags: ConsumerConfigFlags): Partial<ConsumerConfig> {
  const policies = [
    ['pinned_client', flags.pinnedGroups],
    ['overflow', flags.overflowGroups],
    ['prioritized', flags.prioritizedGroups],
  ] as const;
  const given = policies.filter(([, groups]) => groups !== undefined);
  if (given.length > 1) {
    throw new UsageError('give one of --pinned-groups, --overflow-groups, --prioritized-groups');
  }
  if (flags.pinnedTtl && !flags.pinnedGroups) {
    throw new UsageError('--pinned-ttl needs --pinned-groups');
  }
  const [chosen] = given;
  if (!chosen) return {};
  const [policy, groups] = chosen;
  const config: Partial<ConsumerConfig> = {
    priority_policy: policy,
    priority_groups: groups!.split(/[\s,]+/).filter(Boolean),
  };
  if (flags.pinnedTtl) config.priority_timeout = parseDuration(flags.pinnedTtl) * 1e6;
  return config;
}

/** One subject is `filter_subject` (every server has it), several `filter_subjects` (2.10). */
export function filterSubjects(text: string): Partial<ConsumerConfig> {
  const subjects = text.split(/[\s,]+/).filter(Boolean);
  if (subjects.length === 0) return {};
  return subjects.length === 1 ? { filter_subject: subjects[0] } : { filter_subjects: subjects };
}

/** A duration in nanoseconds, with -1 (as the nats CLI takes it) for off. */
export function nanosOrOff(text: string): number {
  return text.trim() === '-1' ? 0 : parseDuration(text) * 1e6;
}

/**
 * `--deliver all|last|new|last-per-subject|subject|<sequence>|<duration ago>` as the config
 * fields (`subject` is the nats CLI's word for last-per-subject).
 */
export function deliverPolicy(text: string): Partial<ConsumerConfig> {
  switch (text) {
    case 'all':
    case 'last':
    case 'new':
      return { deliver_policy: text };
    case 'last-per-subject':
    case 'subject':
      return { deliver_policy: 'last_per_subject' };
  }
  if (/^\d+$/.test(text))
    return { deliver_policy: 'by_start_sequence', opt_start_seq: parseInteger(text, 1) };
  return {
    deliver_policy: 'by_start_time',
    opt_start_time: new Date(Date.now() - parseDuration(text)).toISOString(),
  };
}
