import type { Counter } from '@slipstream/jetstream';
import type { Command } from 'commander';
import { type Act, example } from '../command-kit.js';
import type { Session } from '../session.js';
import { UsageError } from '../usage-error.js';

/**
 * `slip counter` (alias `ctr`): as `nats counter`, the counters of streams with
 * `allow_msg_counter` (nats-server 2.12): `get` a subject's value, `view` it with its sources,
 * `increment` it (by 1, or by any integer, negative to subtract), `list` a stream's counters.
 * The stream is found by subject unless `--stream` names it.
 */
export function registerCounter(program: Command, act: Act): void {
  const counter = program
    .command('counter')
    .alias('ctr')
    .description('distributed counters of streams with allow_msg_counter (nats-server 2.12+)');
  const withStream = (command: Command) =>
    command.option('--stream <name>', 'the counter stream (default: the one storing the subject)');

  example(
    withStream(counter.command('get <subject>').alias('g').description("a counter's value")),
    'slip counter get hits.home',
  ).action(
    act(async (session, subject: string, options: { stream?: string }) => {
      const { counter } = await counterFor(session, subject, options.stream);
      const entry = await counter.get(subject);
      if (session.json) return session.printJson({ subject, value: entry.value.toString() });
      session.out(entry.value.toString());
    }),
  );

  example(
    withStream(
      counter
        .command('view <subject>')
        .alias('v')
        .description("a counter's value, last increment and sources"),
    ),
    'slip counter view hits.home',
  ).action(
    act(async (session, subject: string, options: { stream?: string }) => {
      const { counter } = await counterFor(session, subject, options.stream);
      const entry = await counter.get(subject);
      const sources = Object.fromEntries(
        [...entry.sources].map(([stream, totals]) => [
          stream,
          Object.fromEntries([...totals].map(([s, total]) => [s, total.toString()])),
        ]),
      );
      if (session.json) {
        return session.printJson({
          subject: entry.subject,
          value: entry.value.toString(),
          increment: entry.increment?.toString(),
          sources,
        });
      }
      const lines = [
        `Counter ${subject}`,
        `      Value: ${entry.value}`,
        `  Increment: ${entry.increment ?? ''}`,
        `    Subject: ${entry.subject}`,
      ];
      if (entry.sources.size === 0) lines.push('', 'No source information found');
      else {
        lines.push('', 'Sources:');
        for (const [stream, totals] of Object.entries(sources)) {
          for (const [s, total] of Object.entries(totals)) lines.push(`  ${stream} ${s}: ${total}`);
        }
      }
      session.out(lines.join('\n'));
    }),
  );

  example(
    withStream(
      counter
        .command('increment <subject> [value]')
        .aliases(['incr', 'i'])
        .description('add to a counter (default 1; negative subtracts) and show its new value'),
    ),
    'slip counter increment hits.home 5',
  ).action(
    act(
      async (session, subject: string, value: string | undefined, options: { stream?: string }) => {
        const text = value ?? '1';
        if (!/^[+-]?\d+$/.test(text)) throw new UsageError(`invalid value: ${text}`);
        const { counter } = await counterFor(session, subject, options.stream);
        const total = await counter.add(subject, BigInt(text));
        if (session.json) return session.printJson({ subject, value: total.toString() });
        session.out(total.toString());
      },
    ),
  );

  example(
    withStream(
      counter
        .command('list [subject]')
        .aliases(['ls', 'l'])
        .description("the subjects of a stream's counters, optionally matching a pattern"),
    ),
    'slip counter list --stream HITS',
  ).action(
    act(async (session, subject: string | undefined, options: { stream?: string }) => {
      if (!options.stream && !subject) throw new UsageError('no stream or subject specified');
      const { stream } = await counterFor(session, subject ?? '>', options.stream);
      const jsm = await session.jsm();
      const info = await jsm.streams.info(stream, { subjects_filter: subject ?? '>' });
      const subjects = Object.keys(info.state.subjects ?? {}).sort();
      if (subjects.length === 0) throw new UsageError('no counters found');
      if (session.json) return session.printJson(subjects);
      session.out(subjects.join('\n'));
    }),
  );
}

async function counterFor(
  session: Session,
  subject: string,
  named: string | undefined,
): Promise<{ stream: string; counter: Counter }> {
  const jsm = await session.jsm();
  const stream = named ?? (await jsm.streams.find(subject));
  const { config } = await jsm.streams.info(stream);
  if (!config.allow_msg_counter || !config.allow_direct) {
    throw new UsageError(`"${stream}" is not a valid counter stream`);
  }
  const { counterFromStream } = await import('@slipstream/jetstream');
  return { stream, counter: await counterFromStream(jsm.jetstream(), stream) };
}
