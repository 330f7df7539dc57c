/**
 * A raw byte pipe to a NATS server for the fuzzer: plain TCP; TLS after the server's INFO (on a
 * port with `allow_non_tls`); raw bytes where the TLS handshake should be (`tls-handshake`, the
 * first byte made a TLS handshake record's so the server takes it for one); or a WebSocket whose
 * every write is one masked binary frame (the fuzz is in the NATS bytes, not in the framing).
 * What the server sends back is dropped; the pipe reports when the server closed it.
 */

import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import { connect as connectTls } from 'node:tls';

export type Carrier = 'tcp' | 'websocket' | 'tls' | 'tls-handshake';

export interface RawConnection {
  write(bytes: Uint8Array): void;
  /** Resolves once the server closed the connection (or it failed). */
  readonly closed: Promise<void>;
  isClosed(): boolean;
  destroy(): void;
}

export async function openRaw(carrier: Carrier, port: number): Promise<RawConnection> {
  const socket = connect({ port, host: '127.0.0.1', noDelay: true });
  let closed = false;
  const closedPromise = new Promise<void>((resolve) =>
    socket.once('close', () => {
      closed = true;
      resolve();
    }),
  );
  socket.on('error', () => {});
  await Promise.race([once(socket, 'connect'), closedPromise]);
  if (carrier === 'websocket' && !closed) await upgrade(socket);
  socket.on('data', () => {});
  if (carrier === 'tls' && !closed) {
    await firstData(socket);
    const secure = connectTls({ socket, rejectUnauthorized: false });
    secure.on('error', () => {});
    secure.on('data', () => {});
    secure.once('close', () => socket.destroy());
    await Promise.race([once(secure, 'secureConnect'), closedPromise]);
    return {
      write: (bytes) => {
        if (!closed && secure.writable) secure.write(bytes);
      },
      closed: closedPromise,
      isClosed: () => closed,
      destroy: () => secure.destroy(),
    };
  }
  let first = carrier === 'tls-handshake';
  const frame =
    carrier === 'websocket'
      ? maskedBinaryFrame
      : (bytes: Uint8Array) => {
          if (!first || bytes.length === 0) return bytes;
          first = false;
          return Buffer.concat([Buffer.from([0x16]), bytes.subarray(1)]);
        };
  return {
    write: (bytes) => {
      if (!closed && socket.writable) socket.write(frame(bytes));
    },
    closed: closedPromise,
    isClosed: () => closed,
    destroy: () => socket.destroy(),
  };
}

/** Waits for the server's first bytes (its INFO), or for the connection to end. */
async function firstData(socket: Socket): Promise<void> {
  await Promise.race([once(socket, 'data'), once(socket, 'close')]);
}

/** The client side of the WebSocket opening handshake; resolves at the end of the 101 response. */
async function upgrade(socket: Socket): Promise<void> {
  socket.write(
    'GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n' +
      `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
  );
  let seen = '';
  while (!seen.includes('\r\n\r\n')) {
    const [chunk] = (await Promise.race([once(socket, 'data'), once(socket, 'close')])) as [
      Buffer | boolean,
    ];
    if (!Buffer.isBuffer(chunk)) return;
    seen += chunk.toString('latin1');
  }
  if (!seen.startsWith('HTTP/1.1 101')) throw new Error(`WebSocket upgrade refused: ${seen}`);
}

/** One final binary frame, masked as a client's must be (RFC 6455 §5.2). */
function maskedBinaryFrame(payload: Uint8Array): Buffer {
  const length = payload.length;
  const lengthBytes = length < 126 ? 0 : length < 65_536 ? 2 : 8;
  const header = Buffer.alloc(2 + lengthBytes + 4);
  header[0] = 0x82;
  if (lengthBytes === 0) header[1] = 0x80 | length;
  else if (lengthBytes === 2) {
    header[1] = 0x80 | 126;
    header.writeUInt16BE(length, 2);
  } else {
    header[1] = 0x80 | 127;
    header.writeBigUInt64BE(BigInt(length), 2);
  }
  const mask = randomBytes(4);
  mask.copy(header, 2 + lengthBytes);
  const body = Buffer.from(payload);
  for (let i = 0; i < body.length; i++) body[i] ^= mask[i & 3];
  return Buffer.concat([header, body]);
}
