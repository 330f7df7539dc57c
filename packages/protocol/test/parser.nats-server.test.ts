import { connect } from 'node:net';
import { type RunningNatsServer, startNatsServer } from '@slipstream/test-servers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProtocolError, ServerSideParser } from '../src/index.js';
import { acceptedInputs, rejectedCases } from './protocol-cases.js';

// The verdicts in protocol-cases.ts, checked against the real nats-server 2.9.10: what it sends
// back (an -ERR text or nothing) and whether it closes must be what our parser's ProtocolError
// says it would.

const CONNECT = 'CONNECT {"verbose":false,"pedantic":false,"headers":true}\r\n';
/** Upper bound on waiting for the server, so a wrong expectation fails instead of hanging. */
const PATIENCE_MS = 10_000;

let server: RunningNatsServer;
beforeAll(async () => {
  server = await startNatsServer();
});
afterAll(async () => {
  await server?.stop();
});

interface Exchange {
  /** Everything the server wrote after its INFO line. */
  output: string;
  closed: boolean;
}

/** Sends CONNECT and `input` after the server's INFO; ends when `done(output)` or on close. */
function exchange(input: string, done: (output: string) => boolean): Promise<Exchange> {
  return new Promise((resolve) => {
    const socket = connect(server.port, '127.0.0.1');
    let received = '';
    let sent = false;
    const output = () => received.slice(received.indexOf('\n') + 1);
    const finish = (closed: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ output: output(), closed });
    };
    const timer = setTimeout(() => finish(false), PATIENCE_MS);
    socket.on('data', (data) => {
      received += data.toString('utf8');
      if (!sent && received.includes('\n')) {
        sent = true;
        socket.write(CONNECT + input);
      }
      if (sent && done(output())) finish(false);
    });
    socket.on('close', () => finish(true));
    socket.on('error', () => {});
  });
}

describe('nats-server agrees with ServerSideParser', () => {
  it.each(rejectedCases)('on $what', async ({ input, code, serverErrorText }) => {
    const [error] = ServerSideParser.parseAll([new TextEncoder().encode(input)]).filter(
      (r) => r instanceof ProtocolError,
    ) as ProtocolError[];
    expect(error.code).toBe(code);
    const { output, closed } = await exchange(input, () => false);
    expect(closed).toBe(true);
    expect(output).toBe(serverErrorText === undefined ? '' : `-ERR '${serverErrorText}'\r\n`);
  });

  it.each(acceptedInputs.map((input) => [input.slice(0, 40), input]))(
    'on accepted input %j',
    async (_, input) => {
      const results = ServerSideParser.parseAll([new TextEncoder().encode(`${input}PING\r\n`)]);
      expect(results.filter((r) => r instanceof ProtocolError)).toEqual([]);
      const pongs = 'PONG\r\n'.repeat(
        results.filter((r) => !(r instanceof ProtocolError) && r.op === 'PING').length,
      );
      const { output, closed } = await exchange(
        `${input}PING\r\n`,
        (out) => out.length >= pongs.length,
      );
      expect(closed).toBe(false);
      expect(output).toBe(pongs);
    },
  );
});
