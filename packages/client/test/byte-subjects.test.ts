import { connect as connectTcp } from 'node:net';
import { describe, expect, it } from 'vitest';
import type { Msg } from '../src/node.js';
import { connectedSuite, serverKinds, waitFor } from './servers.js';

// Subjects are bytes on the wire. A subject that is not valid UTF-8 reaches the client as a
// string in which each invalid byte is a lone surrogate U+DC80 + (byte - 0x80), and the client
// sends such a string as exactly those bytes again.

/** A hand-driven connection speaking bytes (latin1 text, one char per byte). */
async function rawConnection(port: number) {
  const socket = connectTcp({ port, host: '127.0.0.1' });
  let received = '';
  socket.setEncoding('latin1');
  socket.on('data', (chunk: string) => {
    received += chunk;
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  const pongs = () => received.split('PONG\r\n').length;
  return {
    get received() {
      return received;
    },
    /** Sends the bytes and a PING; resolves once the server has answered everything before it. */
    async send(text: string) {
      const before = pongs();
      socket.write(Buffer.from(`${text}PING\r\n`, 'latin1'));
      await waitFor(() => pongs() > before, 'PONG');
    },
    close: () => socket.destroy(),
  };
}

describe.each(serverKinds)('byte subjects through the client against $name', (kind) => {
  const suite = connectedSuite(kind);

  it('hands out invalid UTF-8 losslessly and publishes it back as the same bytes', async () => {
    const raw = await rawConnection(Number(new URL(suite.server.url).port));
    try {
      await raw.send(
        'CONNECT {"verbose":false}\r\nSUB \xff.a 1\r\nSUB r\xfe 2\r\nSUB \xfe.a 3\r\n',
      );
      const got: Msg[] = [];
      const sub = suite.nc.subscribe('*.a', { callback: (_err, msg) => void got.push(msg) });
      await suite.nc.flush();

      await raw.send('PUB \xfe.a r\xfe 2\r\nhi\r\n');
      await waitFor(() => got.length > 0, 'the message');
      const msg = got[0]!;
      expect(msg.subject).toBe('\udcfe.a');
      expect(msg.reply).toBe('r\udcfe');
      expect(msg.string()).toBe('hi');

      suite.nc.publish(msg.subject, 'same');
      suite.nc.publish('\udcff.a', 'other');
      msg.respond('ok');
      await suite.nc.flush();
      await raw.send('');
      sub.unsubscribe();

      expect(raw.received).toContain('MSG \xfe.a 3 4\r\nsame\r\n');
      expect(raw.received).toContain('MSG \xff.a 1 5\r\nother\r\n');
      expect(raw.received).toContain('MSG r\xfe 2 2\r\nok\r\n');
      // Each subscription got only its own subject: the echo of the first PUB, and the above.
      expect(raw.received.match(/MSG /g)).toHaveLength(4);
    } finally {
      raw.close();
    }
  });
});
