import type { Command } from 'commander';
import type { Session } from './session.js';

// What every command file uses to declare itself.

/** Turns a command's work into a commander action: a Session for it, closed when it ends. */
export type Act = <A extends unknown[]>(
  work: (session: Session, ...args: A) => Promise<void>,
) => (...params: unknown[]) => Promise<void>;

/** Appends an example to a command's help, as `nats <command> --help` shows one. */
export function example(command: Command, ...lines: string[]): Command {
  return command.addHelpText('after', `\nExample:\n${lines.map((l) => `  $ ${l}`).join('\n')}\n`);
}
