import { Command, Option } from 'commander';
import packageJson from '../package.json' with { type: 'json' };
import type { Act } from './command-kit.js';
import { registerAccount } from './commands/account.js';
import { registerBench } from './commands/bench.js';
import { registerConsumer } from './commands/consumer.js';
import { registerContext } from './commands/context.js';
import { registerCounter } from './commands/counter.js';
import { registerKv } from './commands/kv.js';
import { registerObj } from './commands/obj.js';
import { registerPub } from './commands/pub.js';
import { registerReply } from './commands/reply.js';
import { registerReq } from './commands/req.js';
import { registerRtt } from './commands/rtt.js';
import { registerServer } from './commands/server.js';
import { registerStream } from './commands/stream.js';
import { registerSub } from './commands/sub.js';

/** The `slip` program: the connection flags of the nats CLI, then every command. */
export function buildProgram(signal: AbortSignal): Command {
  const program = new Command('slip')
    .description(
      'A NATS and JetStream command line tool, with the commands and flags of the nats CLI.',
    )
    .version(packageJson.version)
    .addOption(
      new Option('-s, --server <urls>', 'NATS server URLs, comma separated').env('NATS_URL'),
    )
    .addOption(new Option('--user <name>', 'user name').env('NATS_USER'))
    .addOption(new Option('--password <password>', 'password').env('NATS_PASSWORD'))
    .addOption(new Option('--token <token>', 'authentication token'))
    .addOption(new Option('--creds <file>', 'user credentials (.creds) file').env('NATS_CREDS'))
    .addOption(new Option('--nkey <file>', 'file holding a user NKey seed'))
    .addOption(new Option('--tlscert <file>', 'TLS client certificate (PEM)'))
    .addOption(new Option('--tlskey <file>', 'TLS client private key (PEM)'))
    .addOption(new Option('--tlsca <file>', 'TLS certificate authority (PEM)'))
    .addOption(new Option('--context <name>', 'saved context to use').env('NATS_CONTEXT'))
    .addOption(new Option('--timeout <duration>', 'time to wait for a server').default('5s'))
    .addOption(new Option('--json', 'print results as JSON'))
    .configureHelp({ showGlobalOptions: true, sortSubcommands: true })
    .showHelpAfterError('(add --help for usage)')
    .exitOverride()
    .configureOutput({ outputError: (text, write) => write(`slip: ${text}`) });

  const act: Act =
    (work) =>
    async (...params) => {
      // commander passes the positional arguments, the options, then the command itself.
      const command = params[params.length - 1] as Command;
      // Loaded by the command that runs, not at start: the session brings the client, which
      // `slip --help`, `--version` and a usage error do without.
      const { Session } = await import('./session.js');
      const session = new Session(command, signal);
      try {
        await work(session, ...(params.slice(0, -1) as never));
      } finally {
        await session.close();
      }
    };

  for (const register of [
    registerContext,
    registerPub,
    registerSub,
    registerReq,
    registerReply,
    registerRtt,
    registerServer,
    registerAccount,
    registerStream,
    registerConsumer,
    registerBench,
    registerKv,
    registerObj,
    registerCounter,
  ]) {
    register(program, act);
  }
  return program;
}
