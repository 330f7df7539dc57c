import { isIP, type Socket } from 'node:net';
import { type SecureContext, TLSSocket, connect as tlsConnect } from 'node:tls';
import { pem } from '../pem.js';
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
  const secure = new TLSSocket(socket, {
    isServer: true,
    secureContext: context,
    requestCert: verify,
    rejectUnauthorized: verify,
  });
  return handshake(secure, 'secure', timeout, socket);
}

/**
 * The leaf's side: after the hub's INFO, a TLS client handshake over the same socket, checking
 * the hub's certificate against `tls.ca` (the system's CAs without one) and its name, unless
 * `insecure`.
 */
export function upgradeToHub(
  socket: Socket,
  tls: RemoteTlsOptions,
  hostname: string,
): Promise<TLSSocket> {
  const secure = tlsConnect({
    socket,
    ...(isIP(hostname) ? {} : { servername: hostname }),
    ca: tls.ca === undefined ? undefined : pem(tls.ca),
    cert: tls.cert === undefined ? undefined : pem(tls.cert),
    key: tls.key === undefined ? undefined : pem(tls.key),
    rejectUnauthorized: !tls.insecure,
    // Node checks the name (an IP address against the certificate's IP SANs, as Go's
    // crypto/tls does) unless told not to.
    ...(tls.insecure ? { checkServerIdentity: () => undefined } : {}),
  });
  return handshake(secure, 'secureConnect', tls.timeout ?? DEFAULT_TIMEOUT, socket);
}

function handshake(
  secure: TLSSocket,
  done: 'secure' | 'secureConnect',
  timeout: number,
  socket: Socket,
): Promise<TLSSocket> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => fail(new Error('TLS handshake timeout')), timeout);
    const fail = (error: Error) => {
      clearTimeout(timer);
      secure.destroy();
      socket.destroy();
      reject(error);
    };
    secure.once('error', fail);
    secure.once(done, () => {
      clearTimeout(timer);
      secure.off('error', fail);
      resolve(secure);
    });
  });
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
