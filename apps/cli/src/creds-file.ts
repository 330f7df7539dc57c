import { readFile } from 'node:fs/promises';
import type { Authenticator } from '@slipstream/client';
import { UsageError } from './usage-error.js';

/**
 * The authenticator of a `.creds` file, the file read and its JWT and seed checked now (by
 * signing a test nonce), so that a missing or broken file is one error line naming it rather
 * than a failure inside the connection attempt.
 */
export async function credsFileAuthenticator(path: string): Promise<Authenticator> {
  let creds: Buffer;
  try {
    creds = await readFile(path);
  } catch (error) {
    throw new UsageError(`cannot read the creds file: ${(error as Error).message}`);
  }
  const { credsAuthenticator } = await import('@slipstream/client');
  const authenticator = credsAuthenticator(creds);
  try {
    await authenticator('check');
  } catch (error) {
    throw new UsageError(`${path} is not a usable creds file: ${(error as Error).message}`);
  }
  return authenticator;
}
