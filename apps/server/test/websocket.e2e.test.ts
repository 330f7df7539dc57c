import { connect } from 'node:net';
import { join } from 'node:path';
import { startNatsServer } from '@slipstream/test-servers';
import { describe, expect, it } from 'vitest';

// The websocket block of one config file, run by nats-server 2.9.10 and the slipstream-server
// bin: both open the listener and greet a client with INFO in a binary frame.

const slipstreamServer = join(import.meta.dirname, '..', 'bin', 'slipstream-server.js');

/** Upgrades a raw TCP connection to WebSocket and resolves with the first frame's opcode and text. */
function firstFrame(port: number): Promise<{ status: string; opcode: number; text: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let received = Buffer.alloc(0);
    socket.on('error', reject);
    socket.write(
      'GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n' +
        'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n',
    );
    socket.on('data', (chunk) => {
      received = Buffer.concat([received, chunk]);
      const end = received.indexOf('\r\n\r\n');
      if (end < 0) return;
      const frame = received.subarray(end + 4);
      // A server frame is unmasked; INFO fits the 16-bit length form (126) or the 7-bit one.
      if (frame.length < 4) return;
      const short = frame[1]! & 0x7f;
      const [length, start] = short === 126 ? [frame.readUInt16BE(2), 4] : [short, 2];
      if (frame.length < start + length) return;
      socket.destroy();
      resolve({
        status: received.subarray(0, received.indexOf('\r\n')).toString(),
        opcode: frame[0]! & 0x0f,
        text: frame.subarray(start, start + length).toString(),
      });
    });
  });
}

describe.each([
  { name: 'nats-server', bin: undefined },
  { name: 'slipstream-server', bin: slipstreamServer },
])('the websocket block run by $name', ({ bin }) => {
  it('opens the listener and sends INFO in a binary frame', async () => {
    const server = await startNatsServer({ bin, websocket: true });
    try {
      const { status, opcode, text } = await firstFrame(server.wsPort!);
      expect(status).toBe('HTTP/1.1 101 Switching Protocols');
      expect(opcode).toBe(2);
      expect(text).toMatch(/^INFO \{.*"port":\d+.*\} \r\n$/);
    } finally {
      await server.stop();
    }
  });
});
