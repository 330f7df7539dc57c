import type { Socket } from 'node:net';
import type { SecureContext, TLSSocket } from 'node:tls';
import { acceptServerTls, dialServerTls } from '../interserver/server-tls.js';
import type { RemoteTlsOptions } from './leaf-options.js';

/** nats-server's default TLS handshake timeout. */
const DEFAULT_TIMEOUT = 2_000;
/** Longest first line of a hub we wait for (its INFO). */
const MAX_INFO_LINE = 1024 * 1024;

/**
 * The hub's side of a TLS leaf connection, as nats-server's: the INFO (saying tls_required) goes
 * out in the clear, then the leaf starts the handshake; resolves with the secure socket.
 */
export function acceptTls(
  socket: Socket,
  info: string,
  context: SecureContext,
  verify: boolean,
  timeout: number,
): Promise<TLSSocket> {
  socket.write(`INFO ${info} \r\n`);
  return acceptServerTls(socket, context, verify, timeout);
}

/**
 * The leaf's side: after the hub's INFO, a TLS client handshake over the same socket (see
 * dialServerTls).
 */
export function upgradeToHub(
  socket: Socket,
  tls: RemoteTlsOptions,
  hostname: string,
): Promise<TLSSocket> {
  return dialServerTls(socket, tls, hostname, tls.timeout ?? DEFAULT_TIMEOUT);
}

/**
 * The hub's first line (its INFO), read before the leaf connection is made, for it may ask for
 * TLS first. Whatever came after it is put back for the connection to read.
 */
export function readFirstLine(socket: Socket, timeout: number): Promise<string> {
  return new Promise((resolve, reject) => {
    let pending = Buffer.alloc(0);
    const timer = setTimeout(() => finish(new Error('no INFO from the remote')), timeout);
    const finish = (error: Error | undefined, line?: string) => {
      clearTimeout(timer);
      socket.off('data', onData);
      socket.off('error', finish);
      socket.off('close', onClose);
      socket.pause();
      if (error) reject(error);
      else resolve(line!);
    };
    const onClose = () => finish(new Error('connection closed before INFO'));
    const onData = (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      const newline = pending.indexOf(0x0a);
      if (newline < 0) {
        if (pending.length > MAX_INFO_LINE) finish(new Error('INFO line too long'));
        return;
      }
      const rest = pending.subarray(newline + 1);
      if (rest.length > 0) socket.unshift(rest);
      finish(undefined, pending.subarray(0, newline).toString('latin1').replace(/\r$/, ''));
    };
    socket.on('data', onData);
    socket.once('error', finish);
    socket.once('close', onClose);
  });
}
