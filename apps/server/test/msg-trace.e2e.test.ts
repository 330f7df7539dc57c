import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { serving } from './server-process.js';

// Message tracing configured the nats-server 2.11 way in the config file: B's msg_trace takes
// the traces a sampled traceparent asks for, and A's allow_trace lets them follow B's request
// into A (v2.11.0 msgtrace_test.go TestMsgTraceTriggeredByExternalHeader, ServiceImport).

const config = `
accounts {
  A: { users: [ { user: a, password: pwd } ], exports: [ { service: svc, allow_trace: true } ] }
  B: {
    users: [ { user: b, password: pwd } ]
    imports: [ { service: { account: A, subject: svc } } ]
    msg_trace: { dest: "acc.trace", sampling: "100%" }
  }
}
`;

/** A raw connection past CONNECT as `user`, its received text in `text()`. */
async function login(port: number, user: string): Promise<{ socket: Socket; text: () => string }> {
  const socket = connect(port, '127.0.0.1');
  let text = '';
  socket.on('data', (chunk) => {
    text += chunk.toString('latin1');
  });
  await new Promise((resolve) => socket.once('connect', resolve));
  socket.write(
    `CONNECT ${JSON.stringify({ verbose: false, headers: true, user, pass: 'pwd' })}\r\n`,
  );
  return { socket, text: () => text };
}

async function until(condition: () => boolean): Promise<void> {
  for (let waited = 0; !condition(); waited += 20) {
    if (waited > 5_000) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('slipstream-server message tracing from the config file', () => {
  it('traces a traceparent to the account msg_trace, through an allow_trace export', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'msg-trace-'));
    const file = join(dir, 'trace.conf');
    await writeFile(file, config);
    try {
      await serving(['-c', file, '-m', '0'], async (port) => {
        const service = await login(port, 'a');
        service.socket.write('SUB svc 1\r\nPING\r\n');
        const requestor = await login(port, 'b');
        requestor.socket.write('SUB acc.trace 1\r\nPING\r\n');
        await until(() => service.text().includes('PONG') && requestor.text().includes('PONG'));
        const block =
          'NATS/1.0\r\ntraceparent: 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01\r\n\r\n';
        requestor.socket.write(`HPUB svc ${block.length} ${block.length + 2}\r\n${block}hi\r\n`);
        await until(() => /MSG acc\.trace 1 \d+\r\n.*\}\r\n/s.test(requestor.text()));
        const json = /MSG acc\.trace 1 \d+\r\n(.*\})\r\n/s.exec(requestor.text())![1]!;
        const event = JSON.parse(json) as { events: Record<string, unknown>[] };
        expect(event.events.map((e) => e.type)).toEqual(['in', 'si', 'eg']);
        expect(event.events[1]).toMatchObject({ acc: 'A', from: 'svc', to: 'svc' });
        expect(event.events[2]).toMatchObject({ acc: 'A', sub: 'svc' });
        expect(service.text()).toContain('HMSG svc 1 ');
        service.socket.destroy();
        requestor.socket.destroy();
      });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
