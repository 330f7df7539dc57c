import { beforeAll, describe, expect, it } from 'vitest';
import { AckPolicy, StorageType } from '../src/mod.js';
import { streamServers, useJetStreamClients } from './servers.js';

/**
 * Listings come in pages (nats-server: 256 infos or 1024 names a page). Each test makes one
 * more than a page holds and checks the lister walks every page, one request per page.
 */
const NAMES_PAGE = 1024;
const LIST_PAGE = 256;

async function inBatches(count: number, make: (i: number) => Promise<unknown>) {
  for (let start = 0; start < count; start += 64) {
    const batch = Array.from({ length: Math.min(64, count - start) }, (_, i) => make(start + i));
    await Promise.all(batch);
  }
}

async function pages<T>(lister: { next(): Promise<T[]> }) {
  const sizes: number[] = [];
  const items: T[] = [];
  for (let page = await lister.next(); page.length > 0; page = await lister.next()) {
    sizes.push(page.length);
    items.push(...page);
  }
  return { sizes, items };
}

describe.each(streamServers)('paged listings against $name', (kind) => {
  const { clients } = useJetStreamClients(kind);
  const streamCount = NAMES_PAGE + 1;
  beforeAll(async () => {
    await inBatches(streamCount, (i) =>
      clients.jsm.streams.add({ name: `P${i}`, subjects: [`p.${i}`], storage: StorageType.Memory }),
    );
  }, 120_000);

  it('walks every page of stream names', async () => {
    const { sizes, items } = await pages(clients.jsm.streams.names());
    expect(sizes).toEqual([NAMES_PAGE, 1]);
    expect(new Set(items).size).toBe(streamCount);
  });

  it('walks every page of stream infos, and iterates them', async () => {
    const { sizes } = await pages(clients.jsm.streams.list());
    expect(sizes).toEqual([LIST_PAGE, LIST_PAGE, LIST_PAGE, LIST_PAGE, 1]);
    let seen = 0;
    for await (const info of clients.jsm.streams.list()) {
      expect(info.config.name).toMatch(/^P\d+$/);
      seen++;
    }
    expect(seen).toBe(streamCount);
  });

  it('walks every page of consumer infos', async () => {
    await inBatches(LIST_PAGE + 1, (i) =>
      clients.jsm.consumers.add('P0', { durable_name: `C${i}`, ack_policy: AckPolicy.Explicit }),
    );
    const { sizes, items } = await pages(clients.jsm.consumers.list('P0'));
    expect(sizes).toEqual([LIST_PAGE, 1]);
    expect(new Set(items.map((c) => c.name)).size).toBe(LIST_PAGE + 1);
  });
});
