import type { Socket } from 'node:net';
import {
  makeTestCertificates,
  type RunningNatsServer,
  startNatsServer,
  type TestCertificates,
} from '@slipstream/test-servers';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { TransportError } from '../src/index.js';
import { tcpTransport } from '../src/tcp.js';
import { bytes, readUntil } from './helpers.js';

describe('tcp transport, plain', () => {
  let server: RunningNatsServer;
  beforeAll(async () => {
    server = await startNatsServer();
  });
  afterAll(() => server?.stop());

  it('delivers the INFO line first and carries a PING/PONG exchange', async () => {
    const conn = await tcpTransport().connect(new URL(server.url));
    expect(conn.encrypted).toBe(false);
    const pong = readUntil(conn, 'PONG\r\n');
    conn.send(bytes('CONNECT {"verbose":false}\r\nPING\r\n'));
    const seen = await pong;
    expect(seen.startsWith('INFO {')).toBe(true);
    await conn.close();
    expect(await conn.closed).toBeUndefined();
  });

  it('can be read as an async iterable', async () => {
    const conn = await tcpTransport().connect(new URL(server.url));
    conn.send(bytes('CONNECT {"verbose":false}\r\nPING\r\n'));
    let seen = '';
    for await (const chunk of conn) {
      seen += new TextDecoder().decode(chunk);
      if (seen.includes('PONG')) break;
    }
    expect(seen).toMatch(/^INFO .*PONG\r\n$/s);
    expect(await conn.closed).toBeUndefined();
  });

  it('reports the peer closing with the server error still readable', async () => {
    const conn = await tcpTransport().connect(new URL(server.url));
    const closed = new Promise<string>((resolve) => {
      let seen = '';
      conn.listen({
        data: (c) => (seen += new TextDecoder().decode(c)),
        closed: () => resolve(seen),
      });
    });
    conn.send(bytes('CONNECT {"verbose":false}\r\nBOGUS\r\n'));
    expect(await closed).toContain("-ERR 'Unknown Protocol Operation'");
  });

  it('uses the socket factory hook', async () => {
    const { connect } = await import('node:net');
    const opened: string[] = [];
    const transport = tcpTransport({
      socketFactory: (host, port) => {
        opened.push(`${host}:${port}`);
        return connect({ host, port });
      },
    });
    const conn = await transport.connect(new URL(server.url));
    expect(opened).toEqual([`127.0.0.1:${server.port}`]);
    await conn.close();
  });

  it('closes a socket that comes up only after the timeout gave up on it', async () => {
    const { connect } = await import('node:net');
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let late: Socket | undefined;
    const transport = tcpTransport({
      // The socket is opened only once the caller has been told about the timeout.
      socketFactory: async (host, port) => {
        await released;
        late = connect({ host, port });
        return late;
      },
    });
    const error = await transport.connect(new URL(server.url), { timeout: 20 }).catch((e) => e);
    expect(error.code).toBe('TIMEOUT');
    release();
    await vi.waitFor(() => expect(late?.destroyed).toBe(true), { timeout: 5000 });
  });

  it('fails with a typed error when nothing listens', async () => {
    const stopped = await startNatsServer();
    await stopped.stop();
    const error = await tcpTransport()
      .connect(new URL(stopped.url))
      .catch((e) => e);
    expect(error).toBeInstanceOf(TransportError);
    expect(error.code).toBe('CONNECTION_REFUSED');
  });

  it('refuses tls:// against a server without TLS', async () => {
    const url = new URL(server.url.replace('nats:', 'tls:'));
    const error = await tcpTransport()
      .connect(url)
      .catch((e) => e);
    expect(error.code).toBe('TLS_UNAVAILABLE');
  });

  it('says when it holds no sent bytes, so the caller may reuse the array it sent', async () => {
    const conn = await tcpTransport().connect(new URL(server.url));
    const pong = readUntil(conn, 'PONG\r\n');
    const frame = bytes('CONNECT {"verbose":false}\r\nPING\r\n');
    conn.send(frame);
    expect(conn.pendingBytes).toBe(0);
    // Were the bytes still queued, the server would read this garbage and answer -ERR.
    frame.fill(0x21);
    const seen = await pong;
    expect(seen).not.toContain('-ERR');
    await conn.close();
  });

  it('reports back-pressure from send and resolves drained() once the peer reads again', async () => {
    const frozen = await startNatsServer();
    try {
      const conn = await tcpTransport({ highWaterMark: 64 * 1024 }).connect(new URL(frozen.url));
      conn.listen({ data: () => {}, closed: () => {} });
      conn.send(bytes('CONNECT {"verbose":false}\r\n'));
      frozen.process.kill('SIGSTOP');
      const frame = bytes(`PUB bulk 1024\r\n${'x'.repeat(1024)}\r\n`);
      // The kernel buffers absorb the first megabytes; after that send() must say stop.
      let accepted = 0;
      while (conn.send(frame) && accepted < 200_000) {
        accepted++;
        if (accepted % 64 === 0) await new Promise((r) => setImmediate(r));
      }
      expect(accepted).toBeLessThan(200_000);
      expect(conn.pendingBytes).toBeGreaterThanOrEqual(64 * 1024);
      frozen.process.kill('SIGCONT');
      await conn.drained();
      expect(conn.pendingBytes).toBeLessThan(64 * 1024);
      expect(conn.send(bytes('PING\r\n'))).toBe(true);
      await conn.close();
    } finally {
      frozen.process.kill('SIGCONT');
      await frozen.stop();
    }
  });
});

describe('tcp transport, TLS driven by INFO', () => {
  let tls: TestCertificates;
  let server: RunningNatsServer;
  beforeAll(async () => {
    tls = await makeTestCertificates();
    server = await startNatsServer({
      config: `tls { cert_file: "${tls.certFile}", key_file: "${tls.keyFile}" }`,
    });
  });
  afterAll(async () => {
    await server?.stop();
    await tls?.remove();
  });

  it('upgrades when the server says tls_required', async () => {
    const conn = await tcpTransport().connect(new URL(server.url), { tls: { ca: tls.ca } });
    expect(conn.encrypted).toBe(true);
    const pong = readUntil(conn, 'PONG\r\n');
    conn.send(bytes('CONNECT {"verbose":false}\r\nPING\r\n'));
    expect(await pong).toMatch(/^INFO .*"tls_required":true.*PONG\r\n$/s);
    await conn.close();
  });

  it('upgrades with no tls option too, and rejects an untrusted certificate', async () => {
    const error = await tcpTransport()
      .connect(new URL(server.url))
      .catch((e) => e);
    expect(error.code).toBe('TLS_FAILED');
  });

  it('refuses when tls is null', async () => {
    const error = await tcpTransport()
      .connect(new URL(server.url), { tls: null })
      .catch((e) => e);
    expect(error.code).toBe('TLS_REQUIRED');
  });
});

describe('tcp transport, TLS handshake first', () => {
  it('starts TLS before reading the INFO line', async () => {
    const { createServer } = await import('node:tls');
    const { readFileSync } = await import('node:fs');
    const tls = await makeTestCertificates();
    // nats-server 2.9.10 has no handshake_first, so a small TLS server plays its part.
    const server = createServer(
      { cert: readFileSync(tls.certFile), key: readFileSync(tls.keyFile) },
      (socket) => {
        socket.write('INFO {"tls_required":true} \r\n');
        socket.on('data', (d) => {
          if (d.toString().includes('PING')) socket.write('PONG\r\n');
        });
      },
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    try {
      const conn = await tcpTransport().connect(new URL(`nats://127.0.0.1:${port}`), {
        tls: { ca: tls.ca, handshakeFirst: true },
      });
      expect(conn.encrypted).toBe(true);
      const pong = readUntil(conn, 'PONG\r\n');
      conn.send(bytes('CONNECT {}\r\nPING\r\n'));
      expect(await pong).toMatch(/^INFO .*PONG\r\n$/s);
      await conn.close(new Error('done'));
    } finally {
      await new Promise((resolve) => server.close(resolve));
      await tls.remove();
    }
  });
});
