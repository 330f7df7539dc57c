import { requireSystemComponent, slipstreamServerBin } from '@slipstream/test-servers';
import { runCommand } from './command.js';
import type { ServerUnderTest } from './run-test.js';

/** The servers a run can name: ours (the workspace's built bin), the reference, or any executable's path. */
export type ServerKind = 'slipstream' | 'nats-server';

/** The server a run gives the suite, with its version from `--version`. */
export async function serverUnderTest(kind: ServerKind | string): Promise<ServerUnderTest> {
  const executable =
    kind === 'slipstream'
      ? slipstreamServerBin
      : kind === 'nats-server'
        ? requireSystemComponent('nats-server')
        : kind;
  const answer = await runCommand(executable, ['--version']);
  const version = answer.output.trim().split('\n')[0] ?? '';
  if (answer.code !== 0 || version === '') {
    throw new Error(`${executable} --version failed: ${answer.output.trim()}`);
  }
  return { name: kind, executable, version };
}
