import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, NoRespondersError } from '@slipstream/client';
import { type RunningNatsServer, startNatsServer } from '@slipstream/test-servers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JetStreamNotEnabled, jetstream, jetstreamManager, StorageType } from '../src/mod.js';

// nats-server specifics (a domain in the config file, a server without JetStream): these run
// against nats-server only.
describe('JetStream domain and API prefix (nats-server)', () => {
  let server: RunningNatsServer;
  let storeDir: string;
  beforeAll(async () => {
    storeDir = await mkdtemp(join(tmpdir(), 'js-domain-'));
    server = await startNatsServer({
      config: `jetstream { store_dir: "${storeDir}", domain: hub }`,
    });
  });
  afterAll(async () => {
    await server?.stop();
    await rm(storeDir, { recursive: true, force: true });
  });

  it('reaches the API of a domain by domain name or by explicit prefix', async () => {
    const nc = await connect({ servers: server.url });
    try {
      const byDomain = await jetstreamManager(nc, { domain: 'hub' });
      expect((await byDomain.getAccountInfo()).domain).toBe('hub');
      await byDomain.streams.add({ name: 'D', subjects: ['d.>'], storage: StorageType.Memory });

      const byPrefix = await jetstreamManager(nc, { apiPrefix: '$JS.hub.API.' });
      expect((await byPrefix.streams.info('D')).config.name).toBe('D');

      const ack = await jetstream(nc, { domain: 'hub' }).publish('d.1', 'x');
      expect(ack).toEqual({ stream: 'D', seq: 1, duplicate: false, domain: 'hub' });
    } finally {
      await nc.close();
    }
  });

  it('fails with JetStreamNotEnabled for a domain nobody serves', async () => {
    const nc = await connect({ servers: server.url });
    try {
      const error = await jetstreamManager(nc, { domain: 'elsewhere' }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(JetStreamNotEnabled);
      expect((error as Error).cause).toBeInstanceOf(NoRespondersError);
      expect((error as Error).message).toContain('$JS.elsewhere.API.INFO');

      // the client and manager made from each other keep the domain
      const unchecked = await jetstreamManager(nc, { domain: 'elsewhere', checkAPI: false });
      const js = unchecked.jetstream();
      expect(js.getOptions()).toEqual({ domain: 'elsewhere' });
      await expect(js.consumers.get('D', 'C')).rejects.toBeInstanceOf(JetStreamNotEnabled);
      await expect(js.jetstreamManager()).rejects.toBeInstanceOf(JetStreamNotEnabled);
    } finally {
      await nc.close();
    }
  });
});

describe('a server without JetStream (nats-server)', () => {
  let server: RunningNatsServer;
  beforeAll(async () => {
    server = await startNatsServer();
  });
  afterAll(() => server?.stop());

  it('fails jetstreamManager unless checkAPI is off, then fails the first call', async () => {
    const nc = await connect({ servers: server.url });
    try {
      await expect(jetstreamManager(nc)).rejects.toBeInstanceOf(JetStreamNotEnabled);
      const unchecked = await jetstreamManager(nc, { checkAPI: false, timeout: 2000 });
      expect(unchecked.getOptions()).toEqual({ timeout: 2000 });
      await expect(unchecked.streams.info('S')).rejects.toBeInstanceOf(JetStreamNotEnabled);
    } finally {
      await nc.close();
    }
  });
});
