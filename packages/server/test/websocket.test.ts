import { connect as connectTcp } from 'node:net';
import { makeTestCertificates, type TestCertificates } from '@slipstream/test-servers';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import { bothServers, closedAfterEach, type RunningTarget } from './targets.js';

let certs: TestCertificates;
beforeAll(async () => {
  certs = await makeTestCertificates();
});
afterAll(() => certs?.remove());

/** A NATS client over WebSocket driven by hand: every frame it gets, as latin1 text. */
class WsClient {
  text = '';
  binaryFrames = 0;
  closed = false;

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data: Buffer, isBinary) => {
      if (isBinary) this.binaryFrames++;
      this.text += data.toString('latin1');
    });
    ws.on('close', () => {
      this.closed = true;
    });
  }

  static open(url: string, options: WebSocket.ClientOptions = {}): Promise<WsClient> {
    const ws = new WebSocket(url, { rejectUnauthorized: false, ...options });
    return new Promise((resolve, reject) => {
      ws.once('open', () => resolve(new WsClient(ws)));
      ws.once('unexpected-response', (_request, response) =>
        reject(new Error(`HTTP ${response.statusCode}`)),
      );
      ws.once('error', reject);
    });
  }

  send(text: string): void {
    this.ws.send(Buffer.from(text, 'latin1'));
  }

  async waitFor(pattern: string, timeoutMs = 5_000): Promise<void> {
    const until = Date.now() + timeoutMs;
    while (!this.text.includes(pattern)) {
      if (Date.now() > until)
        throw new Error(`waiting for ${pattern}; got ${JSON.stringify(this.text)}`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }

  info(): Record<string, unknown> {
    return JSON.parse(/^INFO (.*) \r\n/.exec(this.text)![1]!);
  }
}

describe.each(bothServers)('WebSocket listener of $name', (target) => {
  const { start, connect } = closedAfterEach(target);
  const open: WsClient[] = [];
  afterEach(() => {
    for (const client of open.splice(0)) client.ws.terminate();
  });
  const wsUrl = (server: RunningTarget, scheme = 'ws') => `${scheme}://127.0.0.1:${server.wsPort}`;
  const openWs = async (url: string, options?: WebSocket.ClientOptions) => {
    const client = await WsClient.open(url, options);
    open.push(client);
    return client;
  };

  it('speaks the protocol in binary frames, to TCP clients and back', async () => {
    const server = await start({ websocket: {} });
    const ws = await openWs(wsUrl(server));
    await ws.waitFor('\r\n');
    expect(ws.info()).toMatchObject({ proto: 1, headers: true });
    expect(ws.binaryFrames).toBe(1);
    // One op split over two frames, several ops in one frame.
    ws.send('CONNECT {"verbose":false}\r\nSU');
    ws.send('B from.tcp 1\r\nPING\r\n');
    await ws.waitFor('PONG\r\n');
    const tcp = await connect(server);
    await tcp.send('CONNECT {"verbose":false}\r\nSUB from.ws 1\r\nPUB from.tcp 2\r\nhi\r\n');
    await tcp.sync();
    await ws.waitFor('MSG from.tcp 1 2\r\nhi\r\n');
    ws.send('PUB from.ws 3\r\nyes\r\n');
    await tcp.waitFor('MSG from.ws 1 3\r\nyes\r\n');
  });

  it('shuts down at once with WebSocket clients connected', async () => {
    const server = await start({ websocket: {} });
    const ws = await openWs(wsUrl(server));
    ws.send('CONNECT {"verbose":false}\r\nPING\r\n');
    await ws.waitFor('PONG\r\n');
    const started = Date.now();
    await server.stop();
    expect(Date.now() - started).toBeLessThan(2_000);
    await vi.waitFor(() => expect(ws.closed).toBe(true), { timeout: 2_000 });
  });

  it('serves wss:// with TLS, INFO as on the client port (its TLS fields included)', async () => {
    const files = { certFile: certs.certFile, keyFile: certs.keyFile };
    const tlsPort = await start({ tls: files, websocket: { tls: files } });
    const ws = await openWs(wsUrl(tlsPort, 'wss'));
    await ws.waitFor('\r\n');
    // nats-server 2.9.10 sends the client port's INFO as it is, tls_required included.
    expect(ws.info()).toMatchObject({ tls_required: true, port: tlsPort.port });
    ws.send('CONNECT {"verbose":false}\r\nPING\r\n');
    await ws.waitFor('PONG\r\n');
    const plainPort = await start({ websocket: { tls: files } });
    const other = await openWs(wsUrl(plainPort, 'wss'));
    await other.waitFor('\r\n');
    expect(other.info()).not.toHaveProperty('tls_required');
  });

  it('compresses with permessage-deflate when configured and asked for', async () => {
    const plain = await start({ websocket: {} });
    expect((await openWs(wsUrl(plain))).ws.extensions).toBe('');
    const compressing = await start({ websocket: { compression: true } });
    const ws = await openWs(wsUrl(compressing));
    expect(ws.ws.extensions).toContain('permessage-deflate');
    ws.send('CONNECT {"verbose":false}\r\nSUB big 1\r\nPUB big 10000\r\n');
    ws.send(`${'z'.repeat(10_000)}\r\n`);
    await ws.waitFor(`MSG big 1 10000\r\n${'z'.repeat(10_000)}\r\n`);
  });

  it('with same_origin, refuses a browser from another origin and lets non-browsers in', async () => {
    const server = await start({ websocket: { sameOrigin: true } });
    const url = wsUrl(server);
    await expect(WsClient.open(url, { origin: 'http://evil.example' })).rejects.toThrow('HTTP 403');
    await openWs(url, { origin: `http://127.0.0.1:${server.wsPort}` });
    await openWs(url);
  });

  it('with allowed_origins, lets in only those', async () => {
    const server = await start({ websocket: { allowedOrigins: ['https://app.example:8443'] } });
    const url = wsUrl(server);
    await openWs(url, { origin: 'https://app.example:8443' });
    await expect(WsClient.open(url, { origin: 'http://app.example:8443' })).rejects.toThrow(
      'HTTP 403',
    );
    await expect(WsClient.open(url, { origin: 'https://app.example' })).rejects.toThrow('HTTP 403');
  });

  it('applies authorization to WebSocket clients', async () => {
    const server = await start({
      websocket: {},
      authorization: { users: [{ user: 'u', pass: 'p' }] },
    });
    const good = await openWs(wsUrl(server));
    good.send('CONNECT {"verbose":false,"user":"u","pass":"p"}\r\nPING\r\n');
    await good.waitFor('PONG\r\n');
    const bad = await openWs(wsUrl(server));
    bad.send('CONNECT {"verbose":false,"user":"u","pass":"x"}\r\nPING\r\n');
    await bad.waitFor("-ERR 'Authorization Violation'\r\n");
  });

  it('closes a connection that does not finish the upgrade within handshake_timeout', async () => {
    const server = await start({ websocket: { handshakeTimeout: 300 } });
    const socket = connectTcp({ port: server.wsPort!, host: '127.0.0.1' });
    socket.on('error', () => {});
    socket.write('GET / HTTP/1.1\r\nHost: x\r\n');
    const started = Date.now();
    await new Promise((resolve) => socket.once('close', resolve));
    expect(Date.now() - started).toBeLessThan(3_000);
  });
});
