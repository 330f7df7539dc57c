import type { StreamConfig } from '@slipstream/jetstream';
import type { Command } from 'commander';
import { type Act, example } from '../command-kit.js';
import { confirmed } from '../confirm.js';
import { formatMessage, fromStream, messageStyle } from '../message-view.js';
import {
  promptStreamConfig,
  type StreamConfigFlags,
  streamConfigFromFlags,
  streamConfigOptions,
} from '../stream-config-options.js';
import { configChanges, formatStreamInfo } from '../stream-info-view.js';
import { table } from '../style.js';
import { formatBytes, formatCount, formatTimestamp, parseInteger } from '../units.js';
import { requireName, UsageError } from '../usage-error.js';
import { registerStreamBackup } from './stream-backup.js';

/** `slip stream ...`: JetStream streams, with the commands and flags of `nats stream`. */
export function registerStream(program: Command, act: Act): void {
  const stream = program.command('stream').alias('str').description('manage JetStream streams');

  example(
    streamConfigOptions(
      stream
        .command('add [name]')
        .alias('create')
        .description('create a stream; at a terminal, asks for every setting no flag gave'),
    ).option('--defaults', 'take the server defaults for every setting not given, without asking'),
    'slip stream add ORDERS --subjects "orders.>" --storage file --defaults',
  ).action(
    act(
      async (
        session,
        name: string | undefined,
        flags: StreamConfigFlags & { defaults?: boolean },
      ) => {
        const given = await streamConfigFromFlags(flags);
        const interactive = process.stdin.isTTY && !flags.defaults && !flags.config;
        const config: StreamConfig = interactive
          ? await promptStreamConfig(name ?? given.name, given)
          : { ...given, name: requireName(name ?? given.name, 'stream') };
        const info = await (await session.jsm()).streams.add(config);
        if (session.json) return session.printJson(info);
        session.note(`Stream ${info.config.name} was created\n`);
        session.out(formatStreamInfo(info));
      },
    ),
  );

  example(
    streamConfigOptions(
      stream
        .command('edit <name>')
        .alias('update')
        .description('change the settings given as flags'),
    ),
    'slip stream edit ORDERS --max-msgs 1000 --max-age 7d',
  ).action(
    act(async (session, name: string, flags: StreamConfigFlags) => {
      const changes = await streamConfigFromFlags(flags);
      if (Object.keys(changes).length === 0)
        throw new UsageError('nothing to change: give the settings as flags');
      const jsm = await session.jsm();
      const before = (await jsm.streams.info(name)).config;
      const info = await jsm.streams.update(name, changes);
      if (session.json) return session.printJson(info);
      session.note(
        `Stream ${name} was updated\n\n${configChanges(before, info.config).join('\n')}\n`,
      );
      session.out(formatStreamInfo(info));
    }),
  );

  example(
    stream.command('info <name>').description('configuration and state of a stream'),
    'slip stream info ORDERS',
  ).action(
    act(async (session, name: string) => {
      const info = await (await session.jsm()).streams.info(name);
      if (session.json) return session.printJson(info);
      session.out(formatStreamInfo(info));
    }),
  );

  example(
    stream
      .command('ls [subject]')
      .alias('list')
      .description('list the streams (those storing the subject, if given)')
      .option('-n, --names', 'only the names, one a line'),
    'slip stream ls --names',
  ).action(
    act(async (session, subject: string | undefined, options: { names?: boolean }) => {
      const jsm = await session.jsm();
      if (options.names) {
        const names: string[] = [];
        for await (const n of jsm.streams.names(subject)) names.push(n);
        names.sort();
        if (session.json) return session.printJson(names);
        return names.length ? session.out(names.join('\n')) : undefined;
      }
      const infos = [];
      for await (const info of jsm.streams.list(subject)) infos.push(info);
      infos.sort((a, b) => a.config.name.localeCompare(b.config.name));
      if (session.json) return session.printJson(infos);
      if (infos.length === 0) return session.note('No Streams defined');
      session.out(
        table(
          ['Name', 'Description', 'Created', 'Messages', 'Size', 'Last Message'],
          infos.map((i) => [
            i.config.name,
            i.config.description ?? '',
            formatTimestamp(i.created),
            formatCount(i.state.messages),
            formatBytes(i.state.bytes),
            i.state.messages ? formatTimestamp(i.state.last_ts ?? '') : 'never',
          ]),
          'Streams',
        ),
      );
    }),
  );

  example(
    stream
      .command('rm <name>')
      .alias('delete')
      .description('delete a stream and all its messages')
      .option('-f, --force', 'do not ask for confirmation'),
    'slip stream rm ORDERS -f',
  ).action(
    act(async (session, name: string, options: { force?: boolean }) => {
      const jsm = await session.jsm();
      await jsm.streams.info(name); // a missing stream is reported before anyone is asked
      if (!(await confirmed(`delete Stream ${name}`, options.force))) return;
      await jsm.streams.delete(name);
      session.note(`Deleted stream ${name}`);
    }),
  );

  example(
    stream
      .command('purge <name>')
      .description(
        'remove messages: all, those of a subject, below a sequence, or all but the newest',
      )
      .option('--subject <subject>', 'only messages on this subject')
      .option('--seq <n>', 'only messages below this sequence')
      .option('--keep <n>', 'keep the newest n messages')
      .option('-f, --force', 'do not ask for confirmation'),
    'slip stream purge ORDERS --subject orders.old -f',
  ).action(
    act(
      async (
        session,
        name: string,
        options: { subject?: string; seq?: string; keep?: string; force?: boolean },
      ) => {
        if (options.seq && options.keep) throw new UsageError('give --seq or --keep, not both');
        const jsm = await session.jsm();
        await jsm.streams.info(name);
        if (!(await confirmed(`purge Stream ${name}`, options.force))) return;
        const filter = options.subject ? { filter: options.subject } : {};
        const response = await jsm.streams.purge(
          name,
          options.seq
            ? { ...filter, seq: parseInteger(options.seq, 1) }
            : options.keep
              ? { ...filter, keep: parseInteger(options.keep) }
              : filter,
        );
        if (session.json) return session.printJson(response);
        const plural = response.purged === 1 ? '' : 's';
        session.out(`Purged ${formatCount(response.purged)} message${plural} from ${name}`);
      },
    ),
  );

  example(
    stream
      .command('get <name> [seq]')
      .description('one stored message, by sequence or the last on a subject')
      .option('--last-for <subject>', 'the last message stored on this subject')
      .option('--raw', 'print only the body'),
    'slip stream get ORDERS 12',
    'slip stream get ORDERS --last-for orders.new --raw',
  ).action(
    act(
      async (
        session,
        name: string,
        seq: string | undefined,
        options: { lastFor?: string; raw?: boolean },
      ) => {
        if ((seq === undefined) === (options.lastFor === undefined)) {
          throw new UsageError('give a sequence or --last-for <subject>');
        }
        const jsm = await session.jsm();
        const query = options.lastFor
          ? { last_by_subj: options.lastFor }
          : { seq: parseInteger(seq as string, 1) };
        const msg = await jsm.streams.getMessage(name, query);
        if (!msg)
          throw new UsageError(
            `no message ${options.lastFor ? `on ${options.lastFor}` : seq} in stream ${name}`,
          );
        const heading = `Item: ${name}#${msg.seq} received ${msg.timestamp} on Subject ${msg.subject}`;
        session.out(formatMessage(fromStream(msg), messageStyle(options, session.json), heading));
      },
    ),
  );

  example(
    stream
      .command('view <name>')
      .description('page through the messages of a stream, oldest first')
      .option('--subject <subject>', 'only messages on this subject (wildcards allowed)')
      .option('--id <seq>', 'start at this sequence', '1')
      .option('--page <n>', 'messages a page (a terminal asks before each next page)', '10')
      .option('--raw', 'print only the bodies'),
    'slip stream view ORDERS --subject "orders.eu.>" --page 20',
  ).action(
    act(
      async (
        session,
        name: string,
        options: { subject?: string; id: string; page: string; raw?: boolean },
      ) => {
        const jsm = await session.jsm();
        const style = messageStyle(options, session.json);
        const page = parseInteger(options.page, 1);
        let seq = parseInteger(options.id, 1);
        let shown = 0;
        while (!session.signal.aborted) {
          const msg = await jsm.streams.getMessage(name, {
            seq,
            next_by_subj: options.subject ?? '>',
          });
          if (!msg) break;
          if (shown > 0 && shown % page === 0 && process.stdin.isTTY && process.stdout.isTTY) {
            const { confirm } = await import('@inquirer/prompts');
            if (!(await confirm({ message: 'Next Page?', default: true }))) break;
          }
          const heading = `[${msg.seq}] Subject: ${msg.subject} Received: ${msg.timestamp}`;
          session.out(formatMessage(fromStream(msg), style, heading));
          shown++;
          seq = msg.seq + 1;
        }
        if (shown === 0 && !session.json)
          session.note(
            `No messages in stream ${name}${options.subject ? ` on ${options.subject}` : ''}`,
          );
      },
    ),
  );

  example(
    stream
      .command('rmm <name> <seq>')
      .description('delete one message from a stream')
      .option('-f, --force', 'do not ask for confirmation'),
    'slip stream rmm ORDERS 12 -f',
  ).action(
    act(async (session, name: string, seq: string, options: { force?: boolean }) => {
      const sequence = parseInteger(seq, 1);
      const jsm = await session.jsm();
      if (!(await confirmed(`delete message ${sequence} from Stream ${name}`, options.force)))
        return;
      await jsm.streams.deleteMessage(name, sequence);
      session.note(`Deleted message ${sequence} from stream ${name}`);
    }),
  );

  registerStreamBackup(stream, act);
}
