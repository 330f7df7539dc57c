// @slipstream/jetstream (and its KV entry point) bundled by Vite for the browser and driven in
// real Chromium against the WebSocket listeners of nats-server 2.9.10 and slipstream-server.
import { join } from 'node:path';
import {
  type RunningNatsServer,
  startNatsServer,
  startSlipstreamServer,
} from '@slipstream/test-servers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BundledPage, openBundledPage } from './bundled-page.js';

let server: RunningNatsServer;
let bundled: BundledPage;

beforeAll(async () => {
  // Skips this file (fails it under CI) when Chromium or nats-server is not installed.
  bundled = await openBundledPage(join(import.meta.dirname, '../page-jetstream'));
});

afterAll(async () => {
  await bundled?.close();
});

const servers = [
  {
    name: 'nats-server 2.9.10',
    start: () => startNatsServer({ websocket: true, jetstream: true }),
  },
  {
    name: 'slipstream-server',
    start: () => startSlipstreamServer({ websocket: true, jetstream: true }),
  },
];

describe.each(servers)('@slipstream/jetstream in Chromium over ws:// to $name', ({ start }) => {
  beforeAll(async () => {
    server = await start();
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('publishes, reads stream info, fetches, and puts and gets a KV entry', async () => {
    const result = await bundled.page.evaluate(async (url) => {
      const { client, jetstream, kv } = window.slipstreamJetStream;
      const nc = await client.connect({ servers: url });
      const jsm = await jetstream.jetstreamManager(nc);
      await jsm.streams.add({
        name: 'BROWSER',
        subjects: ['browser.>'],
        storage: jetstream.StorageType.Memory,
      });
      const js = jetstream.jetstream(nc);
      const acks = [];
      for (let i = 1; i <= 3; i++) acks.push(await js.publish(`browser.${i}`, `hello ${i}`));
      const future = await js.publishAsync('browser.4', 'hello 4');
      const failures = await js.publishAsyncComplete();
      acks.push(await future.ok);
      const info = await jsm.streams.info('BROWSER');

      await jsm.consumers.add('BROWSER', {
        durable_name: 'reader',
        ack_policy: jetstream.AckPolicy.Explicit,
      });
      const consumer = await js.consumers.get('BROWSER', 'reader');
      const fetched: string[] = [];
      for await (const m of await consumer.fetch({ max_messages: 4, expires: 2000 })) {
        fetched.push(`${m.subject}:${m.string()}`);
        m.ack();
      }

      const bucket = await new kv.Kvm(js).create('browser_kv');
      const revision = await bucket.put('greeting', 'hi from Chromium');
      const entry = await bucket.get('greeting');
      await nc.close();
      return {
        seqs: acks.map((a) => a.seq),
        failures: failures.length,
        messages: info.state.messages,
        fetched,
        revision,
        entry: entry && { key: entry.key, value: entry.string(), revision: entry.revision },
      };
    }, `ws://127.0.0.1:${server.wsPort}`);

    expect(result).toEqual({
      seqs: [1, 2, 3, 4],
      failures: 0,
      messages: 4,
      fetched: ['browser.1:hello 1', 'browser.2:hello 2', 'browser.3:hello 3', 'browser.4:hello 4'],
      revision: 1,
      entry: { key: 'greeting', value: 'hi from Chromium', revision: 1 },
    });
  });
});
