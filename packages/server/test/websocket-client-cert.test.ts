import { readFileSync } from 'node:fs';
import { makeTestCertificates, type TestCertificates } from '@slipstream/test-servers';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { bothServers, closedAfterEach, type RunningTarget } from './targets.js';

// wss:// with `websocket { tls { ca_file, verify: true } }`: a browser holding a client
// certificate gets in, one without is turned away during the TLS handshake.

let certs: TestCertificates;
beforeAll(async () => {
  certs = await makeTestCertificates();
});
afterAll(() => certs?.remove());

describe.each(bothServers)('WebSocket client certificates against $name', (target) => {
  const { start } = closedAfterEach(target);
  const sockets: WebSocket[] = [];
  afterEach(() => {
    for (const ws of sockets.splice(0)) ws.terminate();
  });

  const serveVerifying = () =>
    start({
      websocket: {
        tls: {
          certFile: certs.certFile,
          keyFile: certs.keyFile,
          caFile: certs.caFile,
          verify: true,
        },
      },
    });

  /**
   * Opens wss:// to the server as a browser would (an Origin, the test CA trusted), with the given
   * client certificate or none; resolves with the text received up to a PONG, or 'refused'.
   */
  function talk(server: RunningTarget, certificate?: { cert: Buffer; key: Buffer }) {
    const ws = new WebSocket(`wss://localhost:${server.wsPort}`, {
      ca: readFileSync(certs.caFile),
      origin: `https://localhost:${server.wsPort}`,
      ...certificate,
    });
    sockets.push(ws);
    return new Promise<string>((resolve) => {
      let text = '';
      ws.on('open', () => ws.send('CONNECT {"verbose":false}\r\nPING\r\n'));
      ws.on('message', (data: Buffer) => {
        text += data.toString('latin1');
        if (text.endsWith('PONG\r\n')) resolve(text);
      });
      ws.on('error', () => resolve('refused'));
      ws.on('close', () => resolve('refused'));
    });
  }

  const certificateOf = (certFile: string, keyFile: string) => ({
    cert: readFileSync(certFile),
    key: readFileSync(keyFile),
  });

  it('serves a client that presents a certificate signed by the ca', async () => {
    const server = await serveVerifying();
    const text = await talk(server, certificateOf(certs.clientCertFile, certs.clientKeyFile));
    // INFO as on the client port, which has no TLS here: neither server adds TLS fields.
    expect(text).toMatch(/^INFO \{[^\r\n]*\} \r\nPONG\r\n$/);
    expect(text).not.toContain('tls_');
  });

  it('turns away a client without a certificate', async () => {
    const server = await serveVerifying();
    expect(await talk(server)).toBe('refused');
  });
});
