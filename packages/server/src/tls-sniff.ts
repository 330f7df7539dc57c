import type { Socket } from 'node:net';

/** The first byte of every TLS handshake record (ContentType handshake). */
const TLS_HANDSHAKE = 0x16;

/**
 * allow_non_tls: whether the client's first bytes start a TLS handshake, or are plain protocol.
 * Resolves false for a client that sends nothing within `timeoutMs` (it is then served in the
 * clear, where the auth timeout takes over) or goes away. The bytes read are put back, and the
 * socket is left paused for whoever reads it next.
 */
export function startsTlsHandshake(socket: Socket, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const decide = (tls: boolean) => {
      clearTimeout(timer);
      socket.off('data', onData);
      socket.off('close', onClose);
      socket.pause();
      resolve(tls);
    };
    const onData = (chunk: Buffer) => {
      socket.pause();
      socket.unshift(chunk);
      decide(chunk[0] === TLS_HANDSHAKE);
    };
    const onClose = () => decide(false);
    const timer = setTimeout(() => decide(false), timeoutMs);
    timer.unref();
    socket.on('data', onData);
    socket.once('close', onClose);
  });
}
