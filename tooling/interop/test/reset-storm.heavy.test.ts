import { type ChildProcess, spawn } from 'node:child_process';
import { connect as connectTcp, type Socket } from 'node:net';
import { connect as connectTls, type TLSSocket } from 'node:tls';
import {
  freePort,
  makeTestCertificates,
  type RunningNatsServer,
  slipstreamServerBin,
  startNatsServer,
  type TestCertificates,
} from '@slipstream/test-servers';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

// A peer that resets its TCP connection (SO_LINGER 0) at any point must cost the server that one
// connection, never the process. Node 20 can emit 'close' on a TLSSocket whose underlying socket
// a reset closed first while the socket's handle still points at the SSL object it has just
// freed; our server read the negotiated protocol there (for the closed connection's record) and
// died with SIGSEGV in SSL_get_version, in about 1 of 28 storms of 100 resets (alternately at
// connect and after INFO) with busy loops beside it; the mix of stages below finds it within the
// first batch most runs. A reset while allow_non_tls or handshake_first waited for the client's
// first byte was an unhandled ECONNRESET that ended the process every time. The race needs CPU
// contention, so each storm runs beside a busy child process, and the server runs as its own
// process: a crash shows as that process dying, not as the test worker dying.

const BATCHES = 10;
const RESETS_PER_BATCH = 100;
/** How long any one step of a doomed connection may wait for the server before it resets anyway. */
const STEP_MS = 5_000;

let certs: TestCertificates;
beforeAll(async () => {
  certs = await makeTestCertificates();
});
afterAll(() => certs?.remove());

/** Where in its life a connection is reset. */
type Stage =
  | 'at connect'
  | 'after INFO'
  | 'during the TLS handshake'
  | 'after the TLS handshake'
  | 'after the WebSocket upgrade';

interface Listener {
  readonly name: string;
  /** The config lines that open it; `wsPort` is a free port for the WebSocket listener. */
  config(wsPort: number): string;
  /** How a client starts: as a plain one, with TLS after INFO, with TLS at once, or WebSocket over TLS. */
  readonly client: 'plain' | 'TLS after INFO' | 'TLS first' | 'WebSocket';
  /** The stages the storm cycles through. */
  readonly stages: readonly Stage[];
  /** nats-server 2.9.10 has no handshake_first (2.10.4+). */
  readonly oursOnly: boolean;
}

const tlsBlock = (extra: Record<string, unknown> = {}) =>
  `tls: ${JSON.stringify({ cert_file: certs.certFile, key_file: certs.keyFile, ...extra })}`;

const tlsStages: Stage[] = [
  'at connect',
  'after INFO',
  'during the TLS handshake',
  'after the TLS handshake',
];

const listeners: Listener[] = [
  {
    name: 'plain',
    config: () => '',
    client: 'plain',
    stages: ['at connect', 'after INFO'],
    oursOnly: false,
  },
  {
    name: 'TLS',
    config: () => tlsBlock(),
    client: 'TLS after INFO',
    stages: tlsStages,
    oursOnly: false,
  },
  {
    name: 'allow_non_tls',
    config: () => `${tlsBlock()}\nallow_non_tls: true`,
    client: 'TLS after INFO',
    stages: tlsStages,
    oursOnly: false,
  },
  {
    // "auto": a client silent for 50 ms gets INFO in the clear, so the TLS sniff is in play too.
    name: 'handshake_first',
    config: () => tlsBlock({ handshake_first: 'auto' }),
    client: 'TLS first',
    stages: tlsStages,
    oursOnly: true,
  },
  {
    name: 'WebSocket (TLS)',
    config: (wsPort) =>
      `websocket: ${JSON.stringify({
        host: '127.0.0.1',
        port: wsPort,
        tls: { cert_file: certs.certFile, key_file: certs.keyFile },
      })}`,
    client: 'WebSocket',
    stages: [
      'at connect',
      'during the TLS handshake',
      'after the TLS handshake',
      'after the WebSocket upgrade',
    ],
    oursOnly: false,
  },
];

const servers = [
  { name: 'slipstream-server', bin: slipstreamServerBin, ours: true },
  { name: 'nats-server 2.9.10', bin: undefined, ours: false },
];

const UPGRADE_REQUEST =
  'GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n' +
  'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n';

/** A TCP connection, or undefined when none could be made (the server is gone). */
function tcp(port: number): Promise<Socket | undefined> {
  return new Promise((resolve) => {
    const socket = connectTcp({ port, host: '127.0.0.1' });
    socket.once('connect', () => resolve(socket));
    socket.once('error', () => resolve(undefined));
  });
}

/** Starts TLS over `raw` (or a new connection) as a client that trusts the test CA. */
function startTls(options: { socket: Socket } | { port: number }): TLSSocket {
  const secure = connectTls({
    ...('socket' in options ? { socket: options.socket } : { port: options.port }),
    host: '127.0.0.1',
    servername: 'localhost',
    ca: certs.ca,
  });
  secure.on('error', () => {});
  return secure;
}

/** Resolves once `pattern` has arrived on the socket, or it closed, or STEP_MS went by. */
function received(socket: Socket, pattern: RegExp): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    const done = () => {
      clearTimeout(timer);
      socket.off('data', onData);
      socket.off('close', done);
      resolve(text);
    };
    const onData = (chunk: Buffer) => {
      text += chunk.toString('latin1');
      if (pattern.test(text)) done();
    };
    const timer = setTimeout(done, STEP_MS);
    socket.on('data', onData);
    socket.once('close', done);
  });
}

function handshakeOver(secure: TLSSocket): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, STEP_MS);
    const done = () => {
      clearTimeout(timer);
      resolve();
    };
    secure.once('secureConnect', done);
    secure.once('close', done);
  });
}

/** Opens a connection, takes it to `stage`, then resets it. */
async function resetAt(port: number, stage: Stage, listener: Listener): Promise<void> {
  const raw = await tcp(port);
  if (!raw) return;
  raw.on('error', () => {});
  try {
    if (stage === 'at connect') return;
    const tlsFirst = listener.client === 'TLS first' || listener.client === 'WebSocket';
    if (!tlsFirst || stage === 'after INFO') await received(raw, /\r\n/);
    if (stage === 'after INFO') return;
    const secure = startTls({ socket: raw });
    if (stage === 'during the TLS handshake') {
      // The ClientHello is on its way; reset before the server's answer is processed.
      await new Promise((resolve) => setImmediate(resolve));
      return;
    }
    await handshakeOver(secure);
    if (stage === 'after the TLS handshake') return;
    secure.write(UPGRADE_REQUEST);
    await received(secure, /\r\n\r\n/);
  } finally {
    raw.resetAndDestroy();
  }
}

/** A client frame: binary, final, masked with a zero key (so the payload goes as it is). */
function webSocketFrame(text: string): Buffer {
  const payload = Buffer.from(text);
  return Buffer.concat([Buffer.from([0x82, 0x80 | payload.length, 0, 0, 0, 0]), payload]);
}

/** A well-behaved client gets through INFO, CONNECT and PING to its PONG; what it received. */
async function serveOneClient(port: number, listener: Listener): Promise<string> {
  const hello = 'CONNECT {"verbose":false}\r\nPING\r\n';
  let socket: Socket;
  if (listener.client === 'WebSocket') {
    const secure = startTls({ port });
    await handshakeOver(secure);
    secure.write(UPGRADE_REQUEST);
    await received(secure, /INFO .*\r\n/);
    secure.write(webSocketFrame(hello));
    socket = secure;
  } else if (listener.client === 'TLS first') {
    const secure = startTls({ port });
    await received(secure, /INFO .*\r\n/);
    secure.write(hello);
    socket = secure;
  } else {
    const raw = await tcp(port);
    if (!raw) return 'no connection';
    await received(raw, /INFO .*\r\n/);
    if (listener.client === 'plain') {
      raw.write(hello);
      socket = raw;
    } else {
      const secure = startTls({ socket: raw });
      await handshakeOver(secure);
      secure.write(hello);
      socket = secure;
    }
  }
  socket.on('error', () => {});
  const answer = await received(socket, /PONG\r\n/);
  socket.destroy();
  return answer;
}

/** A child process that keeps one core busy, ending by itself should nobody kill it. */
function busyLoop(): ChildProcess {
  const spin = 'const end = Date.now() + 300_000; while (Date.now() < end);';
  return spawn(process.execPath, ['-e', spin], { stdio: 'ignore' });
}

describe.each(servers)('reset storms against $name', ({ bin, ours }) => {
  let server: RunningNatsServer | undefined;
  let busy: ChildProcess | undefined;
  afterEach(async () => {
    busy?.kill('SIGKILL');
    busy = undefined;
    await server?.stop();
    server = undefined;
  });

  it.each(listeners.filter((listener) => ours || !listener.oursOnly))(
    `on the $name listener: the server survives ${BATCHES} x ${RESETS_PER_BATCH} resets under CPU contention and serves a client after each batch`,
    async (listener) => {
      const wsPort = await freePort();
      server = await startNatsServer({ bin, config: listener.config(wsPort) });
      const port = listener.client === 'WebSocket' ? wsPort : server.port;
      const child = server.process;
      busy = busyLoop();
      for (let batch = 0; batch < BATCHES; batch++) {
        for (let i = 0; i < RESETS_PER_BATCH; i++) {
          await resetAt(port, listener.stages[i % listener.stages.length]!, listener);
        }
        const state = `batch ${batch + 1}: exit code ${child.exitCode}, signal ${child.signalCode}\n${server.output().slice(-2_000)}`;
        expect(child.exitCode, state).toBeNull();
        expect(child.signalCode, state).toBeNull();
        expect(await serveOneClient(port, listener), state).toMatch(/PONG\r\n/);
      }
    },
    180_000,
  );
});
