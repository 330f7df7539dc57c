import type { Batch, BatchAck } from '@slipstream/jetstream';
import type { Command } from 'commander';
import { type Act, example } from '../command-kit.js';
import { sleep } from '../interrupt.js';
import { bodyOrStdin, collect, parseHeaders } from '../message-options.js';
import { progressBar } from '../progress.js';
import { compileTemplate } from '../template.js';
import { parseDuration, parseInteger } from '../units.js';

interface PubOptions {
  count: string;
  sleep?: string;
  header?: string[];
  reply?: string;
  jetstream?: boolean;
  batch?: boolean;
  atomic?: boolean;
}

/** `slip pub`: publishes one message, or --count of them with a template body. */
export function registerPub(program: Command, act: Act): void {
  example(
    program
      .command('pub <subject> [body]')
      .description(
        'publish a message; the body (or stdin) may use {{Count}}, {{TimeStamp}}, {{Unix}}, {{ID}}',
      )
      .option('--count <n>', 'how many messages to publish', '1')
      .option('--sleep <duration>', 'pause between messages (e.g. 100ms)')
      .option('-H, --header <key:value>', 'add a header (repeatable)', collect)
      .option('--reply <subject>', 'reply subject to send with the message')
      .option('-J, --jetstream', 'publish to a stream and wait for its acknowledgement')
      .option(
        '--atomic',
        'publish the --count messages as one atomic batch: the stream stores all or none (nats-server 2.12, allow_atomic; implies --jetstream)',
      )
      .option('--batch', 'the same as --atomic'),
    'slip pub orders.new "order {{Count}} at {{TimeStamp}}" --count 10 --sleep 100ms -H Source:cli',
    'slip pub orders.new "line {{Count}}" --count 5 --atomic',
  ).action(
    act(async (session, subject: string, body: string | undefined, options: PubOptions) => {
      const count = parseInteger(options.count, 1);
      const pause = options.sleep ? parseDuration(options.sleep) : 0;
      const render = await compileTemplate(await bodyOrStdin(body));
      const headers = await parseHeaders(options.header);
      const atomic = options.atomic || options.batch;
      if (atomic && count < 2) {
        throw new Error(
          '--atomic needs --count of at least 2: a batch is its first message and its commit',
        );
      }
      const nc = await session.connect();
      const js = options.jetstream || atomic ? await session.jetstream() : undefined;
      const bar = count > 1 && !session.json ? progressBar('Publishing', count) : undefined;
      let bytes = 0;
      let sent = 0;
      const acks = [];
      let batch: Batch | undefined;
      let batchAck: BatchAck | undefined;
      for (; sent < count && !session.signal.aborted; ) {
        const data = render({ count: sent + 1 });
        bytes += Buffer.byteLength(data);
        if (atomic && js) {
          if (!batch) batch = await js.startBatch(subject, data, { headers });
          else if (sent + 1 < count) batch.add(subject, data, { headers });
          else batchAck = await batch.commit(subject, data, { headers });
        } else if (js) acks.push(await js.publish(subject, data, { headers }));
        else nc.publish(subject, data, { headers, reply: options.reply });
        sent++;
        bar?.increment();
        if (pause && sent < count) await sleep(pause, session.signal);
      }
      await nc.flush();
      bar?.stop();
      if (atomic && !batchAck) {
        throw new Error(
          `batch ${batch?.id ?? ''} interrupted after ${sent} messages: the stream stores none of it`,
        );
      }
      if (session.json) {
        const stored = batchAck ? { batch: batchAck } : js ? { acks } : {};
        return session.printJson({ subject, count: sent, bytes, ...stored });
      }
      const what = sent === 1 ? `${bytes} bytes` : `${sent} messages (${bytes} bytes)`;
      session.note(`Published ${what} to "${subject}"`);
      if (batchAck) {
        session.out(
          `Stored batch ${batchAck.batch} of ${batchAck.count} messages in stream ${batchAck.stream}, the last as message ${batchAck.seq}`,
        );
      }
      for (const ack of acks) {
        session.out(
          `Stored in stream ${ack.stream} as message ${ack.seq}${ack.duplicate ? ' (duplicate)' : ''}`,
        );
      }
    }),
  );
}
