import type { Command } from 'commander';
import { type Act, example } from '../command-kit.js';
import { aborted } from '../interrupt.js';
import { formatMessage, messageStyle } from '../message-view.js';
import { parseInteger } from '../units.js';

interface SubOptions {
  queue?: string;
  count?: string;
  raw?: boolean;
}

/** `slip sub`: prints what arrives on a subject until Ctrl-C or --count messages. */
export function registerSub(program: Command, act: Act): void {
  example(
    program
      .command('sub <subject>')
      .description('print the messages published on a subject (wildcards allowed)')
      .option('--queue <group>', 'join a queue group: each message goes to one member')
      .option('--count <n>', 'stop after this many messages')
      .option('--raw', 'print only the bodies, one a line'),
    'slip sub "orders.>" --count 10',
    'slip sub orders.new --json | jq .data',
  ).action(
    act(async (session, subject: string, options: SubOptions) => {
      const max = options.count === undefined ? undefined : parseInteger(options.count, 1);
      const style = messageStyle(options, session.json);
      const nc = await session.connect();
      let received = 0;
      const sub = nc.subscribe(subject, {
        queue: options.queue,
        max,
        callback: (error, msg) => {
          if (error) return;
          received++;
          const heading = `[#${received}] Received on "${msg.subject}"${msg.reply ? ` with reply "${msg.reply}"` : ''}`;
          session.out(formatMessage(msg, style, heading));
        },
      });
      // Said only once the server has the subscription, so what is published next is seen.
      await nc.flush();
      session.note(
        `Subscribing on ${subject}${options.queue ? ` in queue group ${options.queue}` : ''}`,
      );
      await Promise.race([sub.closed, aborted(session.signal)]);
    }),
  );
}
