import { describe, expect, it } from 'vitest';
import { type Advisory, AdvisoryKind, jetstreamManager, StorageType } from '../src/mod.js';
import { streamServers, uniqueStream, useJetStreamServer } from './servers.js';

describe.each(streamServers)('jsm.advisories() against $name', (kind) => {
  const server = useJetStreamServer(kind);

  it('tells of a stream created, updated and deleted, and audits the API calls', async () => {
    const nc = await server.connect();
    const jsm = await jetstreamManager(nc);
    const name = uniqueStream('ADV');
    const seen: Advisory[] = [];
    const iterator = jsm.advisories()[Symbol.asyncIterator]();
    const reading = (async () => {
      for (;;) {
        const { done, value } = await iterator.next();
        if (done) return;
        seen.push(value);
        const data = value.data as { action?: string; stream?: string };
        if (data.action === 'delete' && data.stream === name) return;
      }
    })();
    await jsm.streams.add({ name, subjects: [`${name}.>`], storage: StorageType.Memory });
    await jsm.streams.update(name, { description: 'changed' });
    await jsm.streams.delete(name);
    await reading;
    await iterator.return?.();

    const actions = seen.filter((a) => a.kind === AdvisoryKind.StreamAction);
    expect(actions.map((a) => a.data)).toMatchObject([
      { type: 'io.nats.jetstream.advisory.v1.stream_action', stream: name, action: 'create' },
      { stream: name, action: 'modify' },
      { stream: name, action: 'delete' },
    ]);
    const audits = seen.filter((a) => a.kind === AdvisoryKind.API);
    expect(audits.map((a) => (a.data as { subject: string }).subject)).toEqual(
      expect.arrayContaining([`$JS.API.STREAM.CREATE.${name}`, `$JS.API.STREAM.UPDATE.${name}`]),
    );
  });

  it('passes an event of a type jsapi does not know, and ends on one that fails its schema', async () => {
    const nc = await server.connect();
    const jsm = await jetstreamManager(nc);
    const iterator = jsm.advisories()[Symbol.asyncIterator]();
    // The audit of the manager's own $JS.API.INFO may come in after the subscription (a busy
    // nats-server sends it late): the events this test publishes are the ones after it.
    const next = async () => {
      for (;;) {
        const result = await iterator.next();
        if (result.done || result.value.kind !== AdvisoryKind.API) return result;
      }
    };
    const future = { type: 'io.nats.jetstream.advisory.v1.something_new', id: 'x', extra: 1 };
    nc.publish('$JS.EVENT.ADVISORY.SOMETHING.NEW', JSON.stringify(future));
    expect(await next()).toEqual({
      done: false,
      value: { kind: 'something_new', data: future },
    });
    // a stream_action without its stream, id or timestamp
    const broken = { type: 'io.nats.jetstream.advisory.v1.stream_action', action: 'create' };
    nc.publish('$JS.EVENT.ADVISORY.STREAM.CREATED.X', JSON.stringify(broken));
    await expect(next()).rejects.toThrow(/invalid advisory.*stream_action/);
    expect((await iterator.next()).done).toBe(true);
  });
});
