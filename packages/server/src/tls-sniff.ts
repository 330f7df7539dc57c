import type { Socket } from 'node:net';
import { afterWait } from './timer-delay.js';

/** The first byte of every TLS handshake record (ContentType handshake). */
const TLS_HANDSHAKE = 0x16;

/** What a client's first bytes were: the start of a TLS handshake, plain protocol, or nothing yet. */
export type FirstBytes = 'tls' | 'plain' | 'none';

/**
 * Waits up to `timeoutMs` for a client's first bytes and tells what they start: a TLS handshake
 * (allow_non_tls, handshake_first's fallback) or plain protocol; 'none' when the client sent
 * nothing in time or went away. The bytes read are put back, and the socket is left paused for
 * whoever reads it next. Nothing else listens to the socket meanwhile, so its errors are heard
 * here: a peer's reset while we wait would otherwise be an unhandled 'error' that ends the process.
 */
export function firstBytes(socket: Socket, timeoutMs: number): Promise<FirstBytes> {
  return new Promise((resolve) => {
    const decide = (kind: FirstBytes) => {
      clearTimeout(timer);
      socket.off('data', onData);
      socket.off('close', onGone);
      socket.off('error', onGone);
      socket.pause();
      resolve(kind);
    };
    const onData = (chunk: Buffer) => {
      socket.pause();
      socket.unshift(chunk);
      decide(chunk[0] === TLS_HANDSHAKE ? 'tls' : 'plain');
    };
    const onGone = () => decide('none');
    let timer: NodeJS.Timeout | undefined;
    afterWait(
      timeoutMs,
      () => decide('none'),
      (armed) => {
        timer = armed;
      },
    );
    socket.on('data', onData);
    socket.once('close', onGone);
    socket.once('error', onGone);
  });
}
