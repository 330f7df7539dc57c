import { UsageError } from './usage-error.js';

/**
 * Whether to `action` ("delete Stream ORDERS"), something that cannot be undone: yes with
 * --force; otherwise the person at the terminal is asked. Without a terminal there is nobody to
 * ask, so it is an error.
 */
export async function confirmed(action: string, force: boolean | undefined): Promise<boolean> {
  if (force) return true;
  if (!process.stdin.isTTY) {
    throw new UsageError(`add --force to ${action} without a terminal to confirm it`);
  }
  const { confirm } = await import('@inquirer/prompts');
  return confirm({ message: `Really ${action}?`, default: false });
}
