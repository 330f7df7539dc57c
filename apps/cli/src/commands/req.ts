import type { Command } from 'commander';
import { type Act, example } from '../command-kit.js';
import { bodyOrStdin, collect, parseHeaders } from '../message-options.js';
import { formatMessage, messageStyle } from '../message-view.js';
import { compileTemplate } from '../template.js';
import { formatDuration } from '../units.js';

/** `slip req`: sends a request and prints the reply, with its round trip time. */
export function registerReq(program: Command, act: Act): void {
  example(
    program
      .command('req <subject> [body]')
      .alias('request')
      .description('send a request and print the reply (waits --timeout)')
      .option('-H, --header <key:value>', 'add a header (repeatable)', collect)
      .option('--raw', 'print only the reply body'),
    'slip req time.now "" --timeout 2s',
  ).action(
    act(
      async (
        session,
        subject: string,
        body: string | undefined,
        options: { header?: string[]; raw?: boolean },
      ) => {
        const data = (await compileTemplate(await bodyOrStdin(body)))({ count: 1 });
        const nc = await session.connect();
        if (!options.raw && !session.json) session.note(`Sending request on "${subject}"`);
        const started = performance.now();
        const reply = await nc.request(subject, data, {
          timeout: session.timeout,
          headers: await parseHeaders(options.header),
        });
        const rtt = formatDuration(performance.now() - started);
        session.out(
          formatMessage(reply, messageStyle(options, session.json), `Received with rtt ${rtt}`),
        );
      },
    ),
  );
}
