import { confirm } from '@inquirer/prompts';
import { UsageError } from './usage-error.js';

/**
 * Whether to go ahead with something that cannot be undone: yes with --force, otherwise the
 * person at the terminal is asked; without a terminal there is nobody to ask, so it is an error.
 */
export async function confirmed(question: string, force: boolean | undefined): Promise<boolean> {
  if (force) return true;
  if (!process.stdin.isTTY) {
    throw new UsageError(
      `${question} needs confirmation: add --force to run it without a terminal`,
    );
  }
  return confirm({ message: question, default: false });
}
