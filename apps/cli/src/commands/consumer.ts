import type { ConsumerInfo, JsMsg } from '@slipstream/jetstream';
import type { Command } from 'commander';
import { type Act, example } from '../command-kit.js';
import { confirmed } from '../confirm.js';
import {
  type ConsumerConfigFlags,
  consumerConfigFromFlags,
  consumerConfigOptions,
} from '../consumer-config-options.js';
import { promptConsumerConfig } from '../consumer-prompts.js';
import { formatMessage, messageStyle } from '../message-view.js';
import type { Session } from '../session.js';
import { section, table } from '../style.js';
import { formatCount, formatDuration, formatTimestamp, parseInteger } from '../units.js';
import { requireName, UsageError } from '../usage-error.js';
import { registerConsumerPause } from './consumer-pause.js';
import { registerConsumerReset } from './consumer-reset.js';

/** `slip consumer ...`: pull and push consumers of a stream, with the commands and flags of `nats consumer`. */
export function registerConsumer(program: Command, act: Act): void {
  const consumer = program
    .command('consumer')
    .alias('con')
    .description('manage JetStream consumers');

  example(
    consumerConfigOptions(
      consumer
        .command('add <stream> [name]')
        .alias('create')
        .description(
          'create a durable consumer, pull or push (--target); at a terminal, asks for every setting no flag gave',
        ),
    ).option('--defaults', 'take the defaults for every setting not given, without asking'),
    'slip consumer add ORDERS shipping --filter orders.new --ack explicit --pull --defaults',
    'slip consumer add ORDERS monitor --target monitor.orders --heartbeat 5s --flow-control --defaults',
  ).action(
    act(
      async (
        session,
        stream: string,
        name: string | undefined,
        flags: ConsumerConfigFlags & { defaults?: boolean },
      ) => {
        if (flags.pull && flags.target) throw new UsageError('give --pull or --target, not both');
        const given = consumerConfigFromFlags(flags);
        if (!given.deliver_subject && (given.idle_heartbeat || given.flow_control))
          throw new UsageError('--heartbeat and --flow-control are for push consumers (--target)');
        const config =
          process.stdin.isTTY && !flags.defaults
            ? await promptConsumerConfig(name, given, flags.pull === true)
            : { ...given, durable_name: requireName(name, 'consumer') };
        // As `nats consumer add --defaults`: pull consumers acknowledge each message, push ones none.
        config.ack_policy ??= config.deliver_subject ? 'none' : 'explicit';
        const info = await (await session.jsm()).consumers.add(stream, config);
        if (session.json) return session.printJson(info);
        session.note(`Consumer ${stream} > ${info.name} was created\n`);
        session.out(formatConsumerInfo(info));
      },
    ),
  );

  example(
    consumerConfigOptions(
      consumer
        .command('edit <stream> <name>')
        .alias('update')
        .description('change the settings given as flags'),
    ),
    'slip consumer edit ORDERS shipping --max-deliver 5',
  ).action(
    act(async (session, stream: string, name: string, flags: ConsumerConfigFlags) => {
      const changes = consumerConfigFromFlags(flags);
      if (Object.keys(changes).length === 0)
        throw new UsageError('nothing to change: give the settings as flags');
      const info = await (await session.jsm()).consumers.update(stream, name, changes);
      if (session.json) return session.printJson(info);
      session.note(`Consumer ${stream} > ${name} was updated\n`);
      session.out(formatConsumerInfo(info));
    }),
  );

  example(
    consumer.command('info <stream> <name>').description('configuration and state of a consumer'),
    'slip consumer info ORDERS shipping',
  ).action(
    act(async (session, stream: string, name: string) => {
      const info = await (await session.jsm()).consumers.info(stream, name);
      if (session.json) return session.printJson(info);
      session.out(formatConsumerInfo(info));
    }),
  );

  example(
    consumer
      .command('ls <stream>')
      .alias('list')
      .description('list the consumers of a stream')
      .option('-n, --names', 'only the names, one a line'),
    'slip consumer ls ORDERS',
  ).action(
    act(async (session, stream: string, options: { names?: boolean }) => {
      const infos: ConsumerInfo[] = [];
      for await (const info of (await session.jsm()).consumers.list(stream)) infos.push(info);
      infos.sort((a, b) => a.name.localeCompare(b.name));
      if (session.json) return session.printJson(options.names ? infos.map((i) => i.name) : infos);
      if (options.names)
        return infos.length ? session.out(infos.map((i) => i.name).join('\n')) : undefined;
      if (infos.length === 0) return session.note(`No Consumers defined on stream ${stream}`);
      session.out(
        table(
          ['Name', 'Description', 'Created', 'Ack Pending', 'Unprocessed', 'Last Delivery'],
          infos.map((i) => [
            i.name,
            i.config.description ?? '',
            formatTimestamp(i.created),
            formatCount(i.num_ack_pending),
            formatCount(i.num_pending),
            i.delivered.last_active ? formatTimestamp(i.delivered.last_active) : 'never',
          ]),
          `Consumers of ${stream}`,
        ),
      );
    }),
  );

  example(
    consumer
      .command('rm <stream> <name>')
      .alias('delete')
      .description('delete a consumer')
      .option('-f, --force', 'do not ask for confirmation'),
    'slip consumer rm ORDERS shipping -f',
  ).action(
    act(async (session, stream: string, name: string, options: { force?: boolean }) => {
      const jsm = await session.jsm();
      await jsm.consumers.info(stream, name);
      if (!(await confirmed(`delete Consumer ${stream} > ${name}`, options.force))) return;
      await jsm.consumers.delete(stream, name);
      session.note(`Deleted consumer ${stream} > ${name}`);
    }),
  );

  example(
    consumer
      .command('next <stream> <name>')
      .description('fetch the next messages of a pull consumer, acknowledging each')
      .option('--count <n>', 'how many messages', '1')
      .option('--no-ack', 'do not acknowledge them (they come back after the ack wait)')
      .option('--raw', 'print only the bodies'),
    'slip consumer next ORDERS shipping --count 10',
  ).action(
    act(async (session, stream: string, name: string, options: ReadOptions & { count: string }) => {
      const count = parseInteger(options.count, 1);
      const js = (await session.jsm()).jetstream();
      const pull = await js.consumers.get(stream, name);
      const show = messagePrinter(session, options);
      for (let i = 0; i < count && !session.signal.aborted; i++) {
        const msg = await pull.next({ expires: Math.max(session.timeout, 1000) });
        if (!msg)
          throw new UsageError(
            `no message from ${stream} > ${name} within ${formatDuration(session.timeout)}`,
          );
        await show(msg);
      }
    }),
  );

  example(
    consumer
      .command('sub <stream> <name>')
      .description(
        'print the messages of a consumer as they come (push, or pulled continuously), acknowledging each, until Ctrl-C',
      )
      .option('--count <n>', 'stop after this many messages')
      .option('--no-ack', 'do not acknowledge them')
      .option('--raw', 'print only the bodies'),
    'slip consumer sub ORDERS monitor --count 10',
  ).action(
    act(
      async (session, stream: string, name: string, options: ReadOptions & { count?: string }) => {
        const max = options.count === undefined ? Infinity : parseInteger(options.count, 1);
        const jsm = await session.jsm();
        const info = await jsm.consumers.info(stream, name);
        const js = jsm.jetstream();
        const consumer = info.config.deliver_subject
          ? await js.consumers.getPushConsumer(stream, name)
          : await js.consumers.get(stream, name);
        // Nothing to acknowledge on an ack none consumer, as `nats consumer sub` does.
        const ack = options.ack && info.config.ack_policy !== 'none';
        const show = messagePrinter(session, { ...options, ack });
        const messages = await consumer.consume();
        const stop = () => void messages.close();
        session.signal.addEventListener('abort', stop, { once: true });
        session.note(
          `Consuming from ${stream} > ${name}${info.config.deliver_subject ? ` on ${info.config.deliver_subject}` : ''}`,
        );
        let received = 0;
        try {
          for await (const msg of messages) {
            await show(msg);
            if (++received >= max) break;
          }
        } finally {
          session.signal.removeEventListener('abort', stop);
          await messages.close();
        }
      },
    ),
  );

  registerConsumerPause(consumer, act);
  registerConsumerReset(consumer, act);
}

interface ReadOptions {
  ack: boolean;
  raw?: boolean;
}

/** Prints a consumed message as `nats consumer next` does, then acknowledges it (the server confirming). */
function messagePrinter(session: Session, options: ReadOptions): (msg: JsMsg) => Promise<void> {
  const style = messageStyle(options, session.json);
  return async (msg) => {
    const heading = `[${new Date().toTimeString().slice(0, 8)}] subj: ${msg.subject} / tries: ${msg.info.deliveryCount} / cons seq: ${msg.info.deliverySequence} / str seq: ${msg.info.streamSequence} / pending: ${msg.info.pending}`;
    session.out(
      formatMessage(
        { subject: msg.subject, headers: msg.headers, data: msg.data, seq: msg.seq },
        style,
        heading,
      ),
    );
    if (options.ack) {
      await msg.ackAck({ timeout: session.timeout });
      if (style === 'human') session.out('Acknowledged message\n');
    }
  };
}

/** When a paused consumer goes on, as `nats consumer info` shows it. */
function pauseDeadline(info: ConsumerInfo): string | undefined {
  const until = info.config.pause_until;
  if (!until) return undefined;
  if (!info.paused) return `${formatTimestamp(until)} (passed)`;
  const remaining = info.pause_remaining
    ? ` (${formatDuration(info.pause_remaining / 1e6)} remaining)`
    : '';
  return `${formatTimestamp(until)}${remaining}`;
}

function formatConsumerInfo(info: ConsumerInfo): string {
  const c = info.config;
  const nanos = (n: number | undefined) => (n ? formatDuration(n / 1e6) : undefined);
  return [
    `Information for Consumer ${info.stream_name} > ${info.name} created ${info.created}\n`,
    section('Configuration', [
      ['Name', info.name],
      ['Description', c.description],
      ['Pull Mode', c.deliver_subject ? undefined : 'yes'],
      ['Delivery Subject', c.deliver_subject],
      ['Deliver Queue Group', c.deliver_subject ? c.deliver_group : undefined],
      ['Filter Subject', c.filter_subject ?? c.filter_subjects?.join(', ')],
      [
        'Deliver Policy',
        c.deliver_policy +
          (c.opt_start_seq
            ? ` from sequence ${c.opt_start_seq}`
            : c.opt_start_time
              ? ` since ${c.opt_start_time}`
              : ''),
      ],
      ['Ack Policy', c.ack_policy],
      ['Ack Wait', nanos(c.ack_wait)],
      ['Replay Policy', c.replay_policy],
      ['Maximum Deliveries', c.max_deliver === undefined ? undefined : formatCount(c.max_deliver)],
      [
        'Max Ack Pending',
        c.max_ack_pending === undefined ? undefined : formatCount(c.max_ack_pending),
      ],
      ['Max Waiting Pulls', c.max_waiting],
      ['Inactive Threshold', nanos(c.inactive_threshold)],
      ['Idle Heartbeat', nanos(c.idle_heartbeat)],
      ['Flow Control', c.deliver_subject ? (c.flow_control ? 'yes' : 'no') : undefined],
      ['Headers Only', c.headers_only ? 'yes' : undefined],
      ['Paused Until Deadline', pauseDeadline(info)],
    ]),
    section('State', [
      [
        'Last Delivered Message',
        `Consumer sequence: ${info.delivered.consumer_seq} Stream sequence: ${info.delivered.stream_seq}`,
      ],
      [
        'Acknowledgment Floor',
        `Consumer sequence: ${info.ack_floor.consumer_seq} Stream sequence: ${info.ack_floor.stream_seq}`,
      ],
      ['Outstanding Acks', formatCount(info.num_ack_pending)],
      ['Redelivered Messages', formatCount(info.num_redelivered)],
      ['Unprocessed Messages', formatCount(info.num_pending)],
      ['Waiting Pulls', formatCount(info.num_waiting)],
    ]),
  ].join('\n');
}
