import type { NatsConnection } from '@slipstream/client';
import { type Command, Option } from 'commander';
import {
  consumeMessages,
  publishMessages,
  receiveMessages,
  timedRounds,
} from '../bench/clients.js';
import { type ClientRun, formatResult, summarise } from '../bench/results.js';
import { type Act, example } from '../command-kit.js';
import { aborted } from '../interrupt.js';
import { type Progress, progressBar, silentProgress } from '../progress.js';
import type { Session } from '../session.js';
import { parseInteger, parseSize } from '../units.js';

interface BenchOptions {
  msgs: string;
  size: string;
  clients: string;
}

/** `--msgs`, `--size`, `--clients`, as `nats bench` has them. */
function benchOptions(command: Command, msgs = '100000'): Command {
  return command
    .option('--msgs <n>', 'how many messages in all', msgs)
    .option('--size <size>', 'payload size, e.g. 128 or 1KB', '128')
    .option('--clients <n>', 'concurrent clients, each with its own connection', '1');
}

/** A benchmark's settings, its clients' connections and its progress bar, ready to run. */
async function prepare(session: Session, options: BenchOptions, label: string, totalFactor = 1) {
  const msgs = parseInteger(options.msgs, 1);
  const clients = parseInteger(options.clients, 1);
  const payload = new Uint8Array(parseSize(options.size));
  const connections: NatsConnection[] = await Promise.all(
    Array.from({ length: clients }, () => session.connectAnother()),
  );
  // Each client's share of the messages; the first takes the remainder.
  const shares = connections.map(
    (_, i) => Math.floor(msgs / clients) + (i === 0 ? msgs % clients : 0),
  );
  const bar = (): Progress =>
    session.json ? silentProgress : progressBar(label, msgs * totalFactor);
  return { msgs, payload, connections, shares, bar };
}

async function report(
  session: Session,
  kind: string,
  progress: Progress,
  runs: Promise<ClientRun[]>,
) {
  const result = summarise(kind, await runs);
  progress.stop();
  if (session.json) session.printJson(result);
  else session.out(`\n${formatResult(result)}`);
}

/** `slip bench`: throughput and latency of publishing, subscribing, requests and JetStream. */
export function registerBench(program: Command, act: Act): void {
  const bench = program.command('bench').description('measure throughput and latency');

  example(
    benchOptions(bench.command('pub <subject>').description('publish as fast as possible')),
    'slip bench pub bench.x --msgs 1000000 --size 512 --clients 2',
  ).action(
    act(async (session, subject: string, options: BenchOptions) => {
      const { payload, connections, shares, bar } = await prepare(session, options, 'Publishing');
      const progress = bar();
      const runs = connections.map((nc, i) =>
        publishMessages(nc, subject, payload, shares[i] as number, progress, session.signal),
      );
      await report(session, 'Pub', progress, Promise.all(runs));
    }),
  );

  example(
    benchOptions(
      bench
        .command('sub <subject>')
        .description('receive --msgs messages on each client (start it before bench pub)'),
    ),
    'slip bench sub bench.x --msgs 1000000 --clients 4',
  ).action(
    act(async (session, subject: string, options: BenchOptions) => {
      const { msgs, connections, bar } = await prepare(
        session,
        options,
        'Receiving',
        Number(options.clients),
      );
      const progress = bar();
      const receivers = connections.map((nc) =>
        receiveMessages(nc, subject, msgs, progress, session.signal),
      );
      await Promise.all(receivers.map((r) => r.ready));
      session.note(
        `Waiting for ${msgs} messages on "${subject}" on each of ${connections.length} clients`,
      );
      await report(session, 'Sub', progress, Promise.all(receivers.map((r) => r.run)));
    }),
  );

  example(
    benchOptions(
      bench
        .command('request <subject>')
        .description(
          'send requests one after another on each client (needs a responder: bench reply)',
        ),
      '10000',
    ),
    'slip bench request bench.svc --msgs 20000 --clients 4',
  ).action(
    act(async (session, subject: string, options: BenchOptions) => {
      const { payload, connections, shares, bar } = await prepare(session, options, 'Requesting');
      const progress = bar();
      const runs = connections.map((nc, i) =>
        timedRounds(
          () => nc.request(subject, payload, { timeout: session.timeout }),
          shares[i] as number,
          payload.length,
          progress,
          session.signal,
        ),
      );
      await report(session, 'Request', progress, Promise.all(runs));
    }),
  );

  example(
    bench
      .command('reply <subject>')
      .description('answer requests with their own body until Ctrl-C, in queue group slip-bench')
      .option('--clients <n>', 'responders, each with its own connection', '1'),
    'slip bench reply bench.svc --clients 2',
  ).action(
    act(async (session, subject: string, options: { clients: string }) => {
      const clients = parseInteger(options.clients, 1);
      for (let i = 0; i < clients; i++) {
        const nc = await session.connectAnother();
        nc.subscribe(subject, {
          queue: 'slip-bench',
          callback: (_e, msg) => void msg.respond(msg.data),
        });
        await nc.flush();
      }
      session.note(`Answering requests on "${subject}" with ${clients} clients`);
      await aborted(session.signal);
    }),
  );

  const js = bench.command('js').description('JetStream benchmarks');
  example(
    benchOptions(
      js
        .command('pub <subject>')
        .description('publish to a stream, each publish waiting for its acknowledgement'),
      '10000',
    )
      .option('--stream <name>', 'the stream to publish to', 'benchstream')
      .option('--create', 'create the stream on the subject first, if it is not there')
      .addOption(
        new Option('--storage <type>', 'storage of a created stream')
          .choices(['memory', 'file'])
          .default('memory'),
      ),
    'slip bench js pub bench.js --create --msgs 20000',
  ).action(
    act(
      async (
        session,
        subject: string,
        options: BenchOptions & { stream: string; create?: boolean; storage: 'memory' | 'file' },
      ) => {
        const jsm = await session.jsm();
        if (options.create) {
          const exists = await jsm.streams.info(options.stream).then(
            () => true,
            () => false,
          );
          if (!exists)
            await jsm.streams.add({
              name: options.stream,
              subjects: [subject],
              storage: options.storage,
            });
        }
        const { payload, connections, shares, bar } = await prepare(session, options, 'Publishing');
        const progress = bar();
        const runs = connections.map(async (nc, i) => {
          const client = await session.jetstream(nc);
          return timedRounds(
            () => client.publish(subject, payload),
            shares[i] as number,
            payload.length,
            progress,
            session.signal,
          );
        });
        await report(session, 'JetStream Pub', progress, Promise.all(runs));
      },
    ),
  );

  example(
    benchOptions(
      js
        .command('consume')
        .description('fetch messages of a stream through a new pull consumer, acknowledging each'),
      '10000',
    ).option('--stream <name>', 'the stream to consume', 'benchstream'),
    'slip bench js consume --stream benchstream --msgs 20000',
  ).action(
    act(async (session, options: BenchOptions & { stream: string }) => {
      const jsm = await session.jsm();
      const { nuid } = await import('@slipstream/client');
      const consumer = `slip-bench-${nuid.next()}`;
      // Removed by the server too, should this process die before deleting it.
      await jsm.consumers.add(options.stream, {
        durable_name: consumer,
        ack_policy: 'explicit',
        inactive_threshold: 60e9,
      });
      try {
        const { connections, shares, bar } = await prepare(session, options, 'Consuming');
        const progress = bar();
        const runs = connections.map(async (nc, i) =>
          consumeMessages(
            await session.jetstream(nc),
            options.stream,
            consumer,
            shares[i] as number,
            session.timeout,
            progress,
            session.signal,
          ),
        );
        await report(session, 'JetStream Consume', progress, Promise.all(runs));
      } finally {
        await jsm.consumers.delete(options.stream, consumer).catch(() => {});
      }
    }),
  );
}
