import { InvalidInboxPrefixError, createInbox as protocolCreateInbox } from '@slipstream/protocol';
import { InvalidArgumentError } from './errors.js';

/**
 * A fresh reply subject, `<prefix>.<nuid>` (`_INBOX` by default). A prefix that is not a valid
 * literal subject throws `InvalidArgumentError`, the class nats.js throws for it.
 */
export function createInbox(prefix?: string): string {
  try {
    return protocolCreateInbox(prefix);
  } catch (error) {
    if (error instanceof InvalidInboxPrefixError) {
      throw new InvalidArgumentError(error.message, { cause: error });
    }
    throw error;
  }
}
