import { connect as officialConnect, headers as officialHeaders } from '@nats-io/transport-node';
import { type RunningNatsServer, startNatsServer } from '@slipstream/test-servers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, createInbox, headers } from '../src/node.js';
import { waitFor } from './servers.js';

describe('interop with the official @nats-io/transport-node client on nats-server 2.9.10', () => {
  let server: RunningNatsServer;
  beforeAll(async () => {
    server = await startNatsServer();
  });
  afterAll(() => server?.stop());

  it('messages and headers from ours arrive intact at theirs', async () => {
    const ours = await connect({ servers: server.url });
    const theirs = await officialConnect({ servers: server.url });
    const subject = createInbox();
    const got: Array<{ data: string; h: string[] | undefined; reply?: string }> = [];
    theirs.subscribe(subject, {
      callback: (_e, m) =>
        void got.push({
          data: m.string(),
          h: m.headers?.values('X-Multi'),
          reply: m.reply || undefined,
        }),
    });
    await theirs.flush();
    const h = headers();
    h.append('X-Multi', 'one');
    h.append('X-Multi', 'two: with colon');
    ours.publish(subject, 'plain');
    ours.publish(subject, 'with headers ✓', { headers: h, reply: 'reply.to' });
    ours.publish(subject, new Uint8Array(0));
    await ours.flush();
    await waitFor(() => got.length === 3, 'three messages');
    expect(got).toEqual([
      { data: 'plain', h: undefined, reply: undefined },
      { data: 'with headers ✓', h: ['one', 'two: with colon'], reply: 'reply.to' },
      { data: '', h: undefined, reply: undefined },
    ]);
    await ours.close();
    await theirs.close();
  });

  it('messages and headers from theirs arrive intact at ours, and requests cross both ways', async () => {
    const ours = await connect({ servers: server.url });
    const theirs = await officialConnect({ servers: server.url });
    const subject = createInbox();
    const got: Array<{ data: string; h: string | undefined }> = [];
    ours.subscribe(subject, {
      callback: (_e, m) => void got.push({ data: m.string(), h: m.headers?.get('Trace-Id') }),
    });
    await ours.flush();
    const h = officialHeaders();
    h.set('Trace-Id', 'abc-123');
    theirs.publish(subject, 'hello');
    theirs.publish(subject, 'with headers', { headers: h });
    await theirs.flush();
    await waitFor(() => got.length === 2, 'two messages');
    expect(got).toEqual([
      { data: 'hello', h: undefined },
      { data: 'with headers', h: 'abc-123' },
    ]);

    const service = createInbox();
    ours.subscribe(service, { callback: (_e, m) => void m.respond(`ours:${m.string()}`) });
    theirs.subscribe(`${service}.theirs`, {
      callback: (_e, m) => void m.respond(`theirs:${m.string()}`),
    });
    await ours.flush();
    await theirs.flush();
    expect((await theirs.request(service, 'q', { timeout: 5000 })).string()).toBe('ours:q');
    expect((await ours.request(`${service}.theirs`, 'q', { timeout: 5000 })).string()).toBe(
      'theirs:q',
    );
    await ours.close();
    await theirs.close();
  });
});
