import type { Socket } from 'node:net';
import { TransportError } from './transport-error.js';

/** The INFO fields a transport needs to decide about TLS. */
export interface GreetingInfo {
  tls_required?: boolean;
  tls_available?: boolean;
}

export interface Greeting {
  /** The whole INFO line including its line ending, to be handed to the protocol parser. */
  line: Uint8Array;
  /** Bytes that arrived after the INFO line in the same reads. */
  rest: Uint8Array[];
  info: GreetingInfo;
}

/** INFO lines are a few hundred bytes; anything this long without a newline is not NATS. */
const MAX_GREETING = 64 * 1024;
const INFO_PREFIX = /^INFO\s+/i;

/**
 * Reads the server's first line so the transport can see whether TLS is required before the
 * client's parser gets the bytes. Leaves the socket paused with no data listener attached.
 */
export function readGreeting(socket: Socket): Promise<Greeting> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const cleanup = () => {
      socket.off('data', onData);
      socket.off('error', onError);
      socket.off('close', onClose);
      socket.pause();
    };
    const fail = (error: TransportError) => {
      cleanup();
      reject(error);
    };
    const onError = (error: Error) =>
      fail(
        new TransportError('CONNECTION_LOST', `connection failed before INFO: ${error.message}`, {
          cause: error,
        }),
      );
    const onClose = () =>
      fail(new TransportError('CONNECTION_LOST', 'connection closed before INFO'));
    const onData = (chunk: Buffer) => {
      const newline = chunk.indexOf(10);
      chunks.push(chunk);
      size += chunk.length;
      if (newline < 0) {
        if (size > MAX_GREETING)
          fail(new TransportError('BAD_GREETING', 'no INFO line from the server'));
        return;
      }
      cleanup();
      const all = chunks.length === 1 ? chunk : Buffer.concat(chunks);
      const end = size - chunk.length + newline + 1;
      const line = all.subarray(0, end);
      const text = line.toString('utf8').trim();
      if (!INFO_PREFIX.test(text)) {
        reject(
          new TransportError(
            'BAD_GREETING',
            `expected INFO from the server, got ${JSON.stringify(text.slice(0, 80))}`,
          ),
        );
        return;
      }
      let info: GreetingInfo;
      try {
        info = JSON.parse(text.replace(INFO_PREFIX, ''));
      } catch (error) {
        reject(
          new TransportError('BAD_GREETING', 'the server INFO is not valid JSON', { cause: error }),
        );
        return;
      }
      resolve({ line, rest: end < all.length ? [all.subarray(end)] : [], info });
    };
    socket.on('data', onData);
    socket.on('error', onError);
    socket.on('close', onClose);
    socket.resume();
  });
}
