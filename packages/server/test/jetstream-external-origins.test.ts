/**
 * Mirrors and sources of a stream in another account (`external`), side by side with
 * nats-server 2.9.10: account JS exports its consumer API, the delivery subjects and flow
 * control; account IA imports them, the API under `RI.JS.API` (the accounts of nats-server's
 * TestJetStreamClusterCrossAccountMirrorsAndSources, jetstream_helpers_test.go:636-670 at
 * v2.11.0). Each server's transcript (answers, stored messages and headers, stream info) must
 * be the same; also the prefix checks of checkStreamCfg (stream.go:1570-1590).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { silentLogger, startServer } from '../src/index.js';
import { ConsumerWire } from './jetstream-consumer-wire.js';
import { natsServer, ours, type Target } from './targets.js';

const accounts = {
  JS: {
    jetstream: true,
    users: [{ user: 'rip', pass: 'pass' }],
    exports: [
      { service: '$JS.API.CONSUMER.>' },
      { stream: 'RI.DELIVER.SYNC.>' },
      { service: '$JS.FC.>' },
    ],
  },
  IA: {
    jetstream: true,
    users: [{ user: 'dlc', pass: 'pass' }],
    imports: [
      { service: { account: 'JS', subject: '$JS.API.CONSUMER.>' }, to: 'RI.JS.API.CONSUMER.>' },
      { stream: { account: 'JS', subject: 'RI.DELIVER.SYNC.>' } },
      { service: { account: 'JS', subject: '$JS.FC.>' } },
    ],
  },
};
const API = 'RI.JS.API';

type Answer = Record<string, unknown>;
type Scenario = (origin: ConsumerWire, importer: ConsumerWire) => Promise<unknown>;

async function sideBySide(scenario: Scenario): Promise<unknown> {
  const transcripts: unknown[] = [];
  for (const target of [natsServer, ours] as Target[]) {
    const server = await target.start({ jetstream: true, accounts });
    const origin = await ConsumerWire.connect(server.port, { user: 'rip', pass: 'pass' });
    const importer = await ConsumerWire.connect(server.port, { user: 'dlc', pass: 'pass' });
    try {
      transcripts.push(await scenario(origin, importer));
    } finally {
      origin.close();
      importer.close();
      await server.stop();
    }
  }
  expect(transcripts[1]).toEqual(transcripts[0]);
  return transcripts[0];
}

/** Polls the stream's info until it holds `messages`; returns that info. */
async function infoWhen(wire: ConsumerWire, stream: string, messages: number): Promise<Answer> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const info = await wire.request(`$JS.API.STREAM.INFO.${stream}`);
    const state = info.state as { messages: number } | undefined;
    if (state?.messages === messages || Date.now() > deadline) return info;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A stored message as MSG.GET shows it, its header block decoded. */
async function stored(wire: ConsumerWire, stream: string, seq: number) {
  const answer = await wire.request(`$JS.API.STREAM.MSG.GET.${stream}`, { seq });
  const message = answer.message as { subject: string; seq: number; data?: string; hdrs?: string };
  const text = (b64?: string) => (b64 ? Buffer.from(b64, 'base64').toString() : undefined);
  return {
    subject: message.subject,
    seq: message.seq,
    data: text(message.data),
    hdrs: text(message.hdrs),
  };
}

/**
 * A mirror's or source's info without what changes from run to run, nor the filter_subject
 * 2.10+ repeats there and 2.9.10 does not (asserted for ours below and in
 * jetstream-stream-2-10.test.ts).
 */
function originInfo(info: Answer | undefined) {
  if (!info) return info;
  const { active, filter_subject: _, ...rest } = info;
  return { ...rest, active: typeof active };
}

describe('mirrors and sources of another account (external)', () => {
  it('mirror and source the origin through the imported API and delivery subjects', async () => {
    const transcript = await sideBySide(async (origin, importer) => {
      const created = await origin.request('$JS.API.STREAM.CREATE.TEST', {
        name: 'TEST',
        subjects: ['test.>'],
        storage: 'memory',
      });
      expect(created.error).toBeUndefined();
      for (let i = 1; i <= 20; i++) await origin.request(`test.${i % 2 ? 'a' : 'b'}`, `m${i}`);
      const mirror = await importer.request('$JS.API.STREAM.CREATE.MIRROR', {
        name: 'MIRROR',
        storage: 'memory',
        mirror: { name: 'TEST', external: { api: API, deliver: 'RI.DELIVER.SYNC.MIRRORS' } },
      });
      const source = await importer.request('$JS.API.STREAM.CREATE.SOURCE', {
        name: 'SOURCE',
        storage: 'memory',
        sources: [
          {
            name: 'TEST',
            filter_subject: 'test.a',
            external: { api: API, deliver: 'RI.DELIVER.SYNC.SOURCES' },
          },
        ],
      });
      const caughtUp = [
        await infoWhen(importer, 'MIRROR', 20),
        await infoWhen(importer, 'SOURCE', 10),
      ];
      // Followed as the origin grows.
      for (let i = 21; i <= 24; i++) await origin.request(`test.${i % 2 ? 'a' : 'b'}`, `m${i}`);
      const followed = [
        await infoWhen(importer, 'MIRROR', 24),
        await infoWhen(importer, 'SOURCE', 12),
      ];
      // 3 MiB more: past the consumer's first flow control window (2 MiB), so the mirror only
      // gets them all if its answers to the flow control requests reach the origin's account.
      const kib = 'x'.repeat(1024);
      for (let i = 0; i < 3000; i++) origin.pub('test.b', kib);
      await origin.flush();
      const bulk = await infoWhen(importer, 'MIRROR', 3024);
      // A source starting at an origin sequence: the consumer is asked to start there.
      await importer.request('$JS.API.STREAM.CREATE.LATE', {
        name: 'LATE',
        storage: 'memory',
        sources: [
          {
            name: 'TEST',
            opt_start_seq: 3020,
            external: { api: API, deliver: 'RI.DELIVER.SYNC.LATE' },
          },
        ],
      });
      const late = await infoWhen(importer, 'LATE', 5);
      return {
        mirrorConfig: (mirror.config as Answer).mirror,
        sourceConfig: (source.config as Answer).sources,
        caughtUp: caughtUp.map((info) => info.state && (info.state as Answer).messages),
        followed: followed.map((info) => info.state && (info.state as Answer).messages),
        bulk: (bulk.state as Answer).messages,
        late: [(late.state as Answer).messages, await stored(importer, 'LATE', 1)],
        mirrorInfo: originInfo(followed[0]!.mirror as Answer),
        sourceInfo: (followed[1]!.sources as Answer[]).map(originInfo),
        // The mirror keeps the origin's sequences; the source names the origin (`TEST:<hash
        // of the API prefix> <seq>`) in Nats-Stream-Source.
        mirrored: [await stored(importer, 'MIRROR', 3), await stored(importer, 'MIRROR', 24)],
        sourced: [await stored(importer, 'SOURCE', 1), await stored(importer, 'SOURCE', 12)],
      };
    });
    expect(transcript).toMatchObject({
      caughtUp: [20, 10],
      followed: [24, 12],
      bulk: 3024,
      late: [5, { subject: 'test.b', hdrs: expect.stringContaining(' 3020\r\n') }],
      mirrored: [
        { seq: 3, data: 'm3' },
        { seq: 24, data: 'm24' },
      ],
      sourced: [{ data: 'm1' }, { data: 'm23' }],
    });
  });

  it("shows the origin's refusal of the consumer in the mirror's info", async () => {
    const transcript = await sideBySide(async (_origin, importer) => {
      await importer.request('$JS.API.STREAM.CREATE.LOST', {
        name: 'LOST',
        storage: 'memory',
        mirror: { name: 'NOPE', external: { api: API, deliver: 'RI.DELIVER.SYNC.LOST' } },
      });
      const deadline = Date.now() + 5_000;
      let mirror: Answer | undefined;
      while (!mirror?.error && Date.now() < deadline) {
        mirror = (await importer.request('$JS.API.STREAM.INFO.LOST')).mirror as Answer;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      return originInfo(mirror);
    });
    expect(transcript).toMatchObject({ error: { code: 404, err_code: 10059 } });
  });

  it('checks the external prefixes as nats-server does', async () => {
    const transcript = await sideBySide(async (_origin, importer) => {
      const create = async (external: Answer) => {
        const answer = await importer.request('$JS.API.STREAM.CREATE.X', {
          name: 'X',
          storage: 'memory',
          sources: [{ name: 'TEST', external }],
        });
        return answer.error ?? 'created';
      };
      const plain = await importer.request('$JS.API.STREAM.CREATE.PLAIN', {
        name: 'PLAIN',
        storage: 'memory',
        sources: [{ name: 'TEST', external: { api: API } }],
      });
      return {
        // Echoed with an empty deliver prefix (ExternalStream's `deliver` has no omitempty).
        plain: (plain.config as Answer).sources,
        wildcardDeliver: await create({ api: API, deliver: 'RI.DELIVER.*' }),
        wildcardApi: await create({ api: 'RI.*.API' }),
        ownApi: await create({ api: '$JS.API' }),
      };
    });
    expect(transcript).toMatchObject({
      wildcardDeliver: { err_code: 10024 },
      wildcardApi: { err_code: 10052 },
      ownApi: { err_code: 10021 },
    });
  });
});

/**
 * This server's own JetStream under its domain's prefix is external too: nats-server asks
 * `$JS.<domain>.API.CONSUMER.CREATE.<stream>` as it would another server's (stream.go:2872-2874
 * at v2.11.0), delivering to `$JS.M.<id>` without a deliver prefix. Ours only: the reference
 * harness starts nats-server without a domain.
 */
describe('a mirror through the JetStream domain prefix', () => {
  it('mirrors a stream of the same account reached as $JS.hub.API', async () => {
    const server = await startServer({
      host: '127.0.0.1',
      port: 0,
      jetstream: { domain: 'hub' },
      logger: silentLogger,
    });
    const wire = await ConsumerWire.connect(server.port);
    try {
      await wire.request('$JS.API.STREAM.CREATE.ORIGIN', { name: 'ORIGIN', subjects: ['o.>'] });
      for (let i = 1; i <= 5; i++) await wire.request('o.x', `m${i}`);
      const created = await wire.request('$JS.API.STREAM.CREATE.COPY', {
        name: 'COPY',
        mirror: { name: 'ORIGIN', filter_subject: 'o.x', external: { api: '$JS.hub.API' } },
      });
      expect(created.error).toBeUndefined();
      const info = await infoWhen(wire, 'COPY', 5);
      expect(info.state).toMatchObject({ messages: 5, first_seq: 1, last_seq: 5 });
      expect(info.mirror).toMatchObject({
        name: 'ORIGIN',
        external: { api: '$JS.hub.API', deliver: '' },
        lag: 0,
        // v2.11.0 stream.go:2342, the mirror's filter_subject
        filter_subject: 'o.x',
      });
      expect(await stored(wire, 'COPY', 5)).toEqual({ subject: 'o.x', seq: 5, data: 'm5' });
    } finally {
      wire.close();
      await server.close();
    }
  });
});

describe('external origins after a restart (ours, file storage)', () => {
  it('a mirror and a source resume after what they hold, with nothing twice', async () => {
    const storeDir = await mkdtemp(join(tmpdir(), 'slipstream-external-'));
    const start = async () => {
      const server = await startServer({
        host: '127.0.0.1',
        port: 0,
        jetstream: { storeDir },
        accounts,
        logger: silentLogger,
      });
      const origin = await ConsumerWire.connect(server.port, { user: 'rip', pass: 'pass' });
      const importer = await ConsumerWire.connect(server.port, { user: 'dlc', pass: 'pass' });
      const stop = async () => {
        origin.close();
        importer.close();
        await server.close();
      };
      return { origin, importer, stop };
    };
    const publish = async (origin: ConsumerWire, from: number, to: number) => {
      for (let i = from; i <= to; i++) await origin.request('test.a', `m${i}`);
    };
    let running = await start();
    try {
      await running.origin.request('$JS.API.STREAM.CREATE.TEST', {
        name: 'TEST',
        subjects: ['test.>'],
      });
      await publish(running.origin, 1, 10);
      const external = (deliver: string) => ({ name: 'TEST', external: { api: API, deliver } });
      await running.importer.request('$JS.API.STREAM.CREATE.MIRROR', {
        name: 'MIRROR',
        mirror: external('RI.DELIVER.SYNC.M1'),
      });
      await running.importer.request('$JS.API.STREAM.CREATE.SOURCE', {
        name: 'SOURCE',
        sources: [external('RI.DELIVER.SYNC.S1')],
      });
      await infoWhen(running.importer, 'MIRROR', 10);
      await infoWhen(running.importer, 'SOURCE', 10);
      await running.stop();

      running = await start();
      await publish(running.origin, 11, 15);
      await infoWhen(running.importer, 'MIRROR', 15);
      await infoWhen(running.importer, 'SOURCE', 15);
      // Given time to copy anything twice, neither does.
      await new Promise((resolve) => setTimeout(resolve, 300));
      for (const stream of ['MIRROR', 'SOURCE']) {
        const info = await running.importer.request(`$JS.API.STREAM.INFO.${stream}`);
        expect(info.state).toMatchObject({ messages: 15, last_seq: 15 });
      }
      expect(await stored(running.importer, 'SOURCE', 15)).toMatchObject({
        data: 'm15',
        hdrs: expect.stringMatching(/ 15\r\n/),
      });
    } finally {
      await running.stop();
      await rm(storeDir, { recursive: true, force: true });
    }
  });
});
