import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../src/program.js';

/** Every command that runs something (not a group such as `stream`), by its words. */
function leafCommands(command: Command, path: string[] = []): Array<[string, Command]> {
  return command.commands.flatMap((sub) => {
    const words = [...path, sub.name()];
    return sub.commands.length
      ? leafCommands(sub, words)
      : [[words.join(' '), sub] as [string, Command]];
  });
}

function helpOf(command: Command): string {
  let text = '';
  command.configureOutput({ writeOut: (t) => (text += t) });
  command.outputHelp();
  return text;
}

describe('help', () => {
  const commands = leafCommands(buildProgram(new AbortController().signal)).filter(
    ([name]) => name !== 'help',
  );

  it('has the commands of the issue', () => {
    expect(commands.map(([name]) => name)).toEqual(
      expect.arrayContaining([
        'pub',
        'sub',
        'req',
        'reply',
        'rtt',
        'server check connection',
        'server ping',
        'stream add',
        'consumer next',
        'consumer sub',
        'consumer pause',
        'consumer resume',
        'kv watch',
        'obj put',
        'bench js consume',
        'context select',
      ]),
    );
  });

  it.each(commands)(
    'slip %s --help shows the global flags and an example of itself',
    (name, command) => {
      const help = helpOf(command);
      expect(help).toContain(`Usage: slip ${name}`);
      expect(help).toContain('-s, --server <urls>');
      expect(help).toMatch(
        new RegExp(`\\nExample:\\n {2}\\$ slip ${name.replace(/ /g, ' ')}[ \\n]`),
      );
    },
  );
});
