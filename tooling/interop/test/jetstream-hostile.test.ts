/**
 * Malformed and hostile requests on every `$JS.API` operation, and hostile stream names, sent to
 * slipstream-server and nats-server 2.9.10 alike: each must get the same answer (no answer, or
 * an error with the same status and err_code), the server must keep serving, and no file may
 * appear outside the store directory.
 */
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import {
  type RunningNatsServer,
  startNatsServer,
  startSlipstreamServer,
} from '@slipstream/test-servers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const bodies: Record<string, string> = {
  'truncated JSON': '{"name":',
  'not JSON': 'hello',
  'a JSON array': '[1,2,3]',
  'a JSON string': '"S"',
  'JSON null': 'null',
  'wrong types': '{"name":5,"subjects":"x","max_msgs":"many","seq":"1"}',
  'deep nesting': `${'['.repeat(5000)}${']'.repeat(5000)}`,
  'a huge string': JSON.stringify({ name: 'S', description: 'd'.repeat(200_000) }),
  'NUL bytes': '{"name":"S\\u0000","seq":1}',
};

/** One subject per operation family a client can reach, on an existing stream `S`. */
const subjects = [
  '$JS.API.INFO',
  '$JS.API.STREAM.CREATE.S',
  '$JS.API.STREAM.UPDATE.S',
  '$JS.API.STREAM.INFO.S',
  '$JS.API.STREAM.DELETE.NOPE',
  '$JS.API.STREAM.NAMES',
  '$JS.API.STREAM.LIST',
  '$JS.API.STREAM.PURGE.NOPE',
  '$JS.API.STREAM.MSG.GET.S',
  '$JS.API.STREAM.MSG.DELETE.NOPE',
  '$JS.API.DIRECT.GET.S',
];

const hostileNames: Record<string, string> = {
  'a dot': 'a.b',
  'a star': 'a*',
  'a gt': 'a>',
  'a slash': 'a/b',
  'a backslash': 'a\\b',
  'dot dot': '..',
  'dot dot slash': '../../escape',
  'a space': 'a b',
  'a tab': 'a\tb',
  'over 255 bytes': 'N'.repeat(300),
};

interface Answer {
  answered: boolean;
  code?: number;
  err_code?: number;
  ok?: boolean;
}

async function ask(nc: NatsConnection, subject: string, body: string): Promise<Answer> {
  try {
    const reply = await nc.request(subject, body, { timeout: 1_000 });
    if (reply.headers?.code) return { answered: true, code: reply.headers.code };
    const json = JSON.parse(reply.string());
    if (json.error) return { answered: true, code: json.error.code, err_code: json.error.err_code };
    return { answered: true, ok: true };
  } catch {
    return { answered: false };
  }
}

describe('hostile JetStream API requests: slipstream-server answers as nats-server 2.9.10', () => {
  const servers: Record<string, RunningNatsServer> = {};
  const connections: Record<string, NatsConnection> = {};
  beforeAll(async () => {
    servers.nats = await startNatsServer({ jetstream: true });
    servers.ours = await startSlipstreamServer({ jetstream: true });
    for (const [name, server] of Object.entries(servers)) {
      const nc = await connect({ servers: server.url });
      connections[name] = nc;
      const created = await ask(
        nc,
        '$JS.API.STREAM.CREATE.S',
        JSON.stringify({ name: 'S', subjects: ['s.>'], allow_direct: true }),
      );
      expect(created).toEqual({ answered: true, ok: true });
    }
  }, 30_000);
  afterAll(async () => {
    for (const nc of Object.values(connections)) await nc.close();
    for (const server of Object.values(servers)) await server.stop();
  });

  async function both(subject: string, body: string) {
    const [nats, ours] = await Promise.all([
      ask(connections.nats!, subject, body),
      ask(connections.ours!, subject, body),
    ]);
    return { nats, ours };
  }

  for (const subject of subjects) {
    it(`answers malformed bodies on ${subject} as nats-server does`, async () => {
      const expected: object[] = [];
      const got: object[] = [];
      for (const [what, body] of Object.entries(bodies)) {
        const { nats, ours } = await both(subject, body);
        expected.push({ what, ...nats });
        got.push({ what, ...ours });
      }
      const differing = got.filter((row, i) => JSON.stringify(row) !== JSON.stringify(expected[i]));
      expect(differing.map((row) => [row, expected[got.indexOf(row)]])).toEqual([]);
    });
  }

  it('refuses hostile stream names as nats-server does, and writes nothing outside its store', async () => {
    for (const [what, name] of Object.entries(hostileNames)) {
      const body = JSON.stringify({ name, subjects: [`hostile.${what.replace(/\W/g, '')}`] });
      const subject = `$JS.API.STREAM.CREATE.${name}`;
      const { nats, ours } = await both(subject, body);
      expect({ what, ...ours }).toEqual({ what, ...nats });
    }
    // The store directory is <dir>/js; nothing else may have appeared in <dir> or above it.
    const dir = servers.ours!.dir;
    expect(readdirSync(dir).sort()).toEqual(['js', 'server.conf']);
    expect(readdirSync(dirname(dir)).filter((f) => /escape/.test(f))).toEqual([]);
    expect(readdirSync(join(dir, 'js', 'jetstream', '%24G', 'streams')).sort()).toEqual(['S']);
  });

  // nats-server 2.9.10 panics and exits on this one (slice bounds out of range in STREAM.NAMES),
  // so only ours is asked: it must answer with the first page.
  it('answers a negative listing offset with the first page', async () => {
    for (const subject of ['$JS.API.STREAM.NAMES', '$JS.API.STREAM.LIST']) {
      const reply = await connections.ours!.request(subject, '{"offset":-1}', { timeout: 1_000 });
      expect(JSON.parse(reply.string())).toMatchObject({ total: 1, offset: 0 });
    }
  });

  it('keeps serving after all of it', async () => {
    for (const nc of Object.values(connections)) {
      const ack = JSON.parse(
        (await nc.request('s.after', 'still here', { timeout: 2_000 })).string(),
      );
      expect(ack).toMatchObject({ stream: 'S' });
    }
  });
});
