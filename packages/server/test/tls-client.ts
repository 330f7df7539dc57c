import { readFileSync } from 'node:fs';
import { connect as connectTcp } from 'node:net';
import { type ConnectionOptions, connect as connectTls, type TLSSocket } from 'node:tls';
import type { TestCertificates } from '@slipstream/test-servers';
import { RawClient } from './raw-client.js';

/** A client certificate's PEM files. */
export interface ClientCertificate {
  certFile: string;
  keyFile: string;
}

/** node:tls client options trusting the test CA, with a client certificate if given. */
export function tlsClientOptions(
  certs: TestCertificates,
  clientCertificate?: ClientCertificate,
  extra: ConnectionOptions = {},
): ConnectionOptions {
  return {
    servername: 'localhost',
    ca: readFileSync(certs.caFile),
    ...(clientCertificate
      ? {
          cert: readFileSync(clientCertificate.certFile),
          key: readFileSync(clientCertificate.keyFile),
        }
      : {}),
    ...extra,
  };
}

/**
 * Reads the plain-text INFO, then upgrades to TLS like a NATS client; resolves with the INFO and
 * the TLS client once the handshake is over (or failed: `client.socket.encrypted` tells).
 */
export async function connectSecure(
  port: number,
  certs: TestCertificates,
  clientCertificate?: ClientCertificate,
  extra?: ConnectionOptions,
): Promise<{ info: Record<string, unknown>; client: RawClient }> {
  const socket = connectTcp({ port, host: '127.0.0.1' });
  const infoLine = await new Promise<string>((resolve, reject) => {
    let text = '';
    const onData = (chunk: Buffer) => {
      text += chunk.toString('latin1');
      if (text.includes('\r\n')) {
        socket.off('data', onData);
        socket.pause();
        resolve(text);
      }
    };
    socket.on('data', onData);
    socket.once('error', reject);
  });
  const info = JSON.parse(/^INFO (.*) \r\n$/.exec(infoLine)![1]!) as Record<string, unknown>;
  const secure = connectTls({ socket, ...tlsClientOptions(certs, clientCertificate, extra) });
  const client = RawClient.over(secure);
  await handshakeOver(secure);
  return { info, client };
}

/** Resolves once the TLS handshake succeeded, failed, or the connection closed. */
export function handshakeOver(socket: TLSSocket): Promise<void> {
  return new Promise<void>((resolve) => {
    socket.once('secureConnect', () => resolve());
    socket.once('error', () => resolve());
    socket.once('close', () => resolve());
  });
}
