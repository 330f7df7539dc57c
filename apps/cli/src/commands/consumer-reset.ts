import type { ConsumerInfo } from '@slipstream/jetstream';
import type { Command } from 'commander';
import { type Act, example } from '../command-kit.js';
import { confirmed } from '../confirm.js';
import { apiCall } from '../jetstream-api-call.js';
import { formatDuration, parseInteger } from '../units.js';
import { UsageError } from '../usage-error.js';

/**
 * `slip consumer reset`: as `nats consumer reset`, starts a consumer over (nats-server 2.14's
 * CONSUMER.RESET) from its ack floor, or from `--sequence`. Sent by hand, as natscli does,
 * whatever version the server advertises: a server without it does not answer.
 */
export function registerConsumerReset(consumer: Command, act: Act): void {
  example(
    consumer
      .command('reset <stream> <name>')
      .description(
        'start a consumer over from its ack floor or a stream sequence; nats-server 2.14+',
      )
      .option('--sequence <seq>', 'the stream sequence to start over from')
      .option('-f, --force', 'do not ask for confirmation'),
    'slip consumer reset ORDERS shipping --sequence 100 -f',
  ).action(
    act(
      async (
        session,
        stream: string,
        name: string,
        options: { sequence?: string; force?: boolean },
      ) => {
        const seq = options.sequence === undefined ? undefined : parseInteger(options.sequence, 0);
        if (seq !== undefined && seq < 0) throw new UsageError('--sequence must not be negative');
        const jsm = await session.jsm();
        await jsm.consumers.info(stream, name); // a missing consumer is reported first
        if (!(await confirmed(`reset Consumer ${stream} > ${name}`, options.force))) return;
        let answer: ConsumerInfo & { reset_seq: number };
        try {
          answer = await apiCall(
            await session.connect(),
            `$JS.API.CONSUMER.RESET.${stream}.${name}`,
            seq === undefined ? {} : { seq },
            session.timeout,
          );
        } catch (error) {
          const { TimeoutError } = await import('@slipstream/client');
          if (!(error instanceof TimeoutError)) throw error;
          throw new UsageError(
            `the server did not answer CONSUMER.RESET within ${formatDuration(session.timeout)}: resetting consumers needs nats-server 2.14 or newer`,
          );
        }
        if (session.json) return session.printJson(answer);
        session.out(
          [
            `Consumer ${stream} > ${name} was reset to stream sequence ${answer.reset_seq}`,
            `  Delivered: consumer ${answer.delivered.consumer_seq}, stream ${answer.delivered.stream_seq}`,
            `  Ack floor: consumer ${answer.ack_floor.consumer_seq}, stream ${answer.ack_floor.stream_seq}`,
            `  Pending: ${answer.num_pending}`,
          ].join('\n'),
        );
      },
    ),
  );
}
