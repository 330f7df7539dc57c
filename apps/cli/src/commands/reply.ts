import { spawn } from 'node:child_process';
import type { Msg } from '@slipstream/client';
import type { Command } from 'commander';
import { type Act, example } from '../command-kit.js';
import { aborted } from '../interrupt.js';
import { collect, parseHeaders } from '../message-options.js';
import { formatMessage, messageStyle } from '../message-view.js';
import { compileTemplate } from '../template.js';
import { parseInteger } from '../units.js';
import { UsageError } from '../usage-error.js';

interface ReplyOptions {
  command?: string;
  queue: string;
  count?: string;
  header?: string[];
  echo?: boolean;
}

/**
 * `slip reply`: answers requests on a subject with a fixed body (a template that may use
 * {{Request}} and {{Count}}), or with what a shell command prints when given the request.
 */
export function registerReply(program: Command, act: Act): void {
  example(
    program
      .command('reply <subject> [body]')
      .description('answer requests with a body, or with the output of --command')
      .option(
        '--command <shell command>',
        'run it for each request (the body on stdin, NATS_REQUEST_SUBJECT and NATS_REQUEST_BODY set) and reply with its stdout',
      )
      .option(
        '--queue <group>',
        'queue group, so that several responders share the work',
        'NATS-RPLY-22',
      )
      .option('--count <n>', 'stop after answering this many requests')
      .option('-H, --header <key:value>', 'add a header to each reply (repeatable)', collect)
      .option('--echo', 'reply with the request itself'),
    'slip reply time.now "it is {{TimeStamp}}"',
    'slip reply upper --command "tr a-z A-Z"',
  ).action(
    act(async (session, subject: string, body: string | undefined, options: ReplyOptions) => {
      if (
        [body !== undefined, options.command !== undefined, options.echo].filter(Boolean).length !==
        1
      ) {
        throw new UsageError('give exactly one of: a body, --command, --echo');
      }
      const max = options.count === undefined ? undefined : parseInteger(options.count, 1);
      const render = await compileTemplate(body ?? '');
      const headers = await parseHeaders(options.header);
      const answer = async (msg: Msg, count: number): Promise<Uint8Array | string> => {
        if (options.echo) return msg.data;
        if (options.command) return runShell(options.command, msg);
        return render({ count, request: msg.string() });
      };
      const nc = await session.connect();
      let answered = 0;
      const sub = nc.subscribe(subject, { queue: options.queue, max });
      await nc.flush();
      session.note(`Listening on "${subject}" in group "${options.queue}"`);
      const serve = (async () => {
        for await (const msg of sub) {
          answered++;
          session.out(
            formatMessage(
              msg,
              messageStyle({}, session.json),
              `[#${answered}] Received on "${msg.subject}"`,
            ),
          );
          msg.respond(await answer(msg, answered), { headers });
        }
      })();
      await Promise.race([serve, aborted(session.signal)]);
    }),
  );
}

/** Runs `command` in a shell with the request on stdin; resolves with its stdout. */
function runShell(command: string, msg: Msg): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const child = spawn('/bin/sh', ['-c', command], {
      stdio: ['pipe', 'pipe', 'inherit'],
      env: { ...process.env, NATS_REQUEST_SUBJECT: msg.subject, NATS_REQUEST_BODY: msg.string() },
    });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.once('error', reject);
    child.once('close', () => resolve(Buffer.concat(chunks)));
    child.stdin.on('error', () => {}); // a command that ignores its stdin may close it early
    child.stdin.end(msg.data);
  });
}
