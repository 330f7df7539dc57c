import { connect as connectTcp, type Socket } from 'node:net';
import { connect as connectTls } from 'node:tls';
import { makeTestCertificates, type TestCertificates } from '@slipstream/test-servers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RawClient } from './raw-client.js';
import { bothServers, closedAfterEach, type RunningTarget } from './targets.js';

// A client that aborts with a TCP reset (SO_LINGER 0) at any point of its life must cost the
// server that one connection. Some client libraries probe a port exactly this way, and a reset
// that arrived before the server wrapped the socket in TLS once killed the whole process.

let certs: TestCertificates;
beforeAll(async () => {
  certs = await makeTestCertificates();
});
afterAll(() => certs?.remove());

/** Where in its life a connection is reset. */
type Stage =
  | 'right after accept'
  | 'before INFO is read'
  | 'during the TLS handshake'
  | 'after INFO'
  | 'in the middle of CONNECT'
  | 'after CONNECT';

const plainStages: Stage[] = [
  'right after accept',
  'before INFO is read',
  'after INFO',
  'in the middle of CONNECT',
  'after CONNECT',
];
const tlsStages: Stage[] = [...plainStages, 'during the TLS handshake'];

/** Connections reset per stage; every one is a chance for the race to hit. */
const RESETS_PER_STAGE = 60;
/** Resets in flight at once: enough that some land before the server has accepted. */
const CONCURRENCY = 20;

function tcp(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connectTcp({ port, host: '127.0.0.1' });
    socket.once('connect', () => resolve(socket));
    socket.once('error', reject);
  });
}

/** Resolves once `pattern` has arrived on the socket (or the socket ended first). */
function received(socket: Socket, pattern: RegExp): Promise<void> {
  return new Promise((resolve) => {
    let text = '';
    const done = () => {
      socket.off('data', onData);
      resolve();
    };
    const onData = (chunk: Buffer) => {
      text += chunk.toString('latin1');
      if (pattern.test(text)) done();
    };
    socket.on('data', onData);
    socket.once('close', done);
  });
}

/** Opens a connection, takes it to `stage`, then resets it. Errors of the doomed socket are expected. */
async function resetAt(port: number, stage: Stage, tls: boolean): Promise<void> {
  const raw = await tcp(port);
  raw.on('error', () => {});
  try {
    if (stage === 'right after accept') return;
    if (stage === 'before INFO is read') {
      await new Promise((resolve) => setImmediate(resolve));
      return;
    }
    await received(raw, /\r\n/);
    if (stage === 'after INFO' && !tls) return;
    let channel: Socket = raw;
    if (tls) {
      raw.pause();
      const secure = connectTls({ socket: raw, servername: 'localhost', ca: certs.ca });
      secure.on('error', () => {});
      channel = secure;
      // The ClientHello is on its way: reset before the server's answer is processed.
      if (stage === 'during the TLS handshake') return;
      await new Promise<void>((resolve) => {
        secure.once('secureConnect', () => resolve());
        secure.once('close', () => resolve());
      });
      if (stage === 'after INFO') return;
    }
    if (stage === 'in the middle of CONNECT') {
      channel.write('CONNECT {"verbose":false,"pedan');
      return;
    }
    const pong = received(channel, /PONG\r\n/);
    channel.write('CONNECT {"verbose":false}\r\nPING\r\n');
    await pong;
  } finally {
    raw.resetAndDestroy();
  }
}

/** A well-behaved client's round trip through the server: SUB, PUB, its message back, PONG. */
async function roundTrip(client: RawClient, n: number): Promise<void> {
  await client.send(`SUB probe.${n} ${n}\r\nPUB probe.${n} 2\r\nok\r\nPING\r\n`);
  await client.waitFor(`MSG probe.${n} ${n} 2\r\nok\r\n`, 10_000);
}

async function wellBehavedClient(server: RunningTarget, tls: boolean): Promise<RawClient> {
  if (!tls) {
    const client = await RawClient.connectAndGreet(server.port);
    await client.send('CONNECT {"verbose":false}\r\n');
    return client;
  }
  const raw = await tcp(server.port);
  await received(raw, /\r\n/);
  raw.pause();
  const secure = connectTls({ socket: raw, servername: 'localhost', ca: certs.ca });
  await new Promise<void>((resolve, reject) => {
    secure.once('secureConnect', () => resolve());
    secure.once('error', reject);
  });
  const client = RawClient.over(secure);
  await client.send('CONNECT {"verbose":false}\r\n');
  return client;
}

describe.each(bothServers)('connection resets against $name', (target) => {
  const { start, track } = closedAfterEach(target);

  describe.each([
    { listener: 'plain', tls: false, stages: plainStages },
    { listener: 'TLS', tls: true, stages: tlsStages },
  ])('on a $listener listener', ({ tls, stages }) => {
    it('survives resets at every stage and keeps serving a well-behaved client', async () => {
      const server = await start(
        tls ? { tls: { certFile: certs.certFile, keyFile: certs.keyFile } } : {},
      );
      const client = track(await wellBehavedClient(server, tls));
      let rounds = 0;
      for (const stage of stages) {
        for (let done = 0; done < RESETS_PER_STAGE; done += CONCURRENCY) {
          await Promise.all(
            Array.from({ length: CONCURRENCY }, () => resetAt(server.port, stage, tls)),
          );
          await roundTrip(client, rounds++);
        }
      }
      // A fresh connection after all of it is served as well.
      const late = track(await wellBehavedClient(server, tls));
      await roundTrip(late, rounds);
      expect(client.isClosed).toBe(false);
      expect(rounds).toBe(stages.length * Math.ceil(RESETS_PER_STAGE / CONCURRENCY));
    });
  });
});
