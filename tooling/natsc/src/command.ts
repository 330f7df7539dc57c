import { spawn } from 'node:child_process';

/** What a finished command left: its exit code (null when a signal ended it) and its output. */
export interface CommandResult {
  code: number | null;
  output: string;
}

/**
 * Runs a command to its end, stdout and stderr together in one string. Never rejects for a
 * failing command: the caller reads the code, and says what failed with the output's tail.
 */
export function runCommand(
  command: string,
  args: readonly string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<CommandResult> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.on('error', (error) => resolve({ code: null, output: String(error) }));
    child.on('close', (code) => resolve({ code, output: Buffer.concat(chunks).toString() }));
  });
}

/** The last lines of a command's output, to quote in a message. */
export function tail(output: string, lines = 8): string {
  return output.trimEnd().split('\n').slice(-lines).join('\n');
}
