import { isValidPublishSubject } from '@slipstream/protocol';
import type { Transport } from '@slipstream/transport';
import { InvalidArgumentError } from './errors.js';
import type { ConnectionOptions } from './types.js';

/** Connection options with every default filled in (nats.js's defaults). */
export type ResolvedOptions = Required<
  Pick<
    ConnectionOptions,
    | 'verbose'
    | 'pedantic'
    | 'noEcho'
    | 'headers'
    | 'noResponders'
    | 'timeout'
    | 'inboxPrefix'
    | 'pingInterval'
    | 'maxPingOut'
    | 'reconnect'
    | 'maxReconnectAttempts'
    | 'reconnectTimeWait'
    | 'reconnectJitter'
    | 'reconnectJitterTLS'
    | 'reconnectBufSize'
    | 'outboundBufSize'
    | 'waitOnFirstConnect'
    | 'ignoreClusterUpdates'
    | 'noRandomize'
    | 'ignoreAuthErrorAbort'
    | 'debug'
  >
> &
  ConnectionOptions & { transport: Transport };

/** Fills in the defaults and refuses combinations that cannot work. */
export function resolveOptions(
  options: ConnectionOptions & { transport: Transport },
): ResolvedOptions {
  const resolved: ResolvedOptions = {
    verbose: false,
    pedantic: false,
    noEcho: false,
    headers: true,
    noResponders: true,
    timeout: 20_000,
    inboxPrefix: '_INBOX',
    pingInterval: 120_000,
    maxPingOut: 2,
    reconnect: true,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 2000,
    reconnectJitter: 100,
    reconnectJitterTLS: 1000,
    reconnectBufSize: 8 * 1024 * 1024,
    outboundBufSize: 64 * 1024 * 1024,
    waitOnFirstConnect: false,
    ignoreClusterUpdates: false,
    noRandomize: false,
    ignoreAuthErrorAbort: false,
    debug: false,
    transport: options.transport,
  };
  for (const [key, value] of Object.entries(options)) {
    if (value !== undefined) (resolved as unknown as Record<string, unknown>)[key] = value;
  }
  if (!resolved.headers) {
    // No responders arrive as a header status: without headers it is off unless asked for.
    if (options.noResponders) throw new InvalidArgumentError('noResponders requires headers');
    resolved.noResponders = false;
  }
  if (!isValidPublishSubject(resolved.inboxPrefix)) {
    throw new InvalidArgumentError(
      `inboxPrefix must be a valid subject: '${resolved.inboxPrefix}'`,
    );
  }
  return resolved;
}
