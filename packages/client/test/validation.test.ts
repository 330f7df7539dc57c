import { Svcm } from '@nats-io/services';
import {
  connect as officialConnect,
  createInbox as officialCreateInbox,
} from '@nats-io/transport-node';
import { type NatsServer, silentLogger, startServer } from '@slipstream/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addService,
  connect,
  createInbox,
  errors,
  type Msg,
  type NatsConnection,
  type Service,
  type ServiceConfig,
  serviceClient,
} from '../src/node.js';

/**
 * The arguments each public entry point refuses, run through our client and nats.js v3
 * (@nats-io/transport-node and @nats-io/services) side by side, so a drop-in user sees the same
 * calls refused with errors of the same class name. Where ours is stricter on purpose, the row
 * says so; the client README lists those differences.
 */

/** The name of the error a call was refused with, or `accepted` when it went to the server. */
type Outcome = string;
const ACCEPTED = 'accepted';

/** Errors that come back from the server, so the call itself was accepted. */
const AFTER_SENDING = new Set(['NoRespondersError', 'TimeoutError', 'RequestError']);

/** What both clients offer, in nats.js v3's shapes (ours has the same names). */
interface Client {
  readonly nc: NatsConnection;
  addService(config: ServiceConfig): Promise<Service>;
  /** The service discovery client (`svcm.client()` in nats.js). */
  ping(name?: string, id?: string): Promise<unknown>;
  /** A message delivered to this client carrying `reply`, published by a third connection. */
  receiveWithReply(reply: string): Promise<Msg>;
  createInbox(prefix?: string): string;
  /** Connects another connection with these options, and closes it. */
  connectWith(options: { inboxPrefix: string }): Promise<void>;
}

interface Case {
  readonly call: string;
  run(client: Client): unknown;
  /** What nats.js does. */
  readonly theirs: Outcome;
  /** What ours does, where it differs on purpose; otherwise the same as theirs. */
  readonly ours?: Outcome;
}

const SUBJECT = 'InvalidSubjectError';
const ARGUMENT = 'InvalidArgumentError';
/** nats.js's services library throws a plain Error; ours throws InvalidArgumentError (an Error). */
const SERVICES_PLAIN = { theirs: 'Error', ours: ARGUMENT } as const;
/** Accepted by nats.js (and refused by the server or never delivered); refused by ours first. */
const stricter = (ours: Outcome) => ({ theirs: ACCEPTED, ours });

const whitespace = ['a b', 'a\tb', 'a\nb', 'a\rb'];
const emptyTokens = ['a..b', '.a', 'a.'];
const service = { name: 'svc', version: '1.0.0' };

const cases: Case[] = [
  // publish: nats.js refuses empty subjects and whitespace; ours also what no server would route.
  ...['', ...whitespace].map((s) => ({
    call: `publish(${JSON.stringify(s)})`,
    run: (c: Client) => c.nc.publish(s),
    theirs: SUBJECT,
  })),
  {
    call: 'publish(undefined)',
    run: (c: Client) => c.nc.publish(undefined as never),
    theirs: SUBJECT,
  },
  { call: "publish('a.b')", run: (c) => c.nc.publish('a.b'), theirs: ACCEPTED },
  ...[...emptyTokens, 'a.*', '>'].map((s) => ({
    call: `publish(${JSON.stringify(s)})`,
    run: (c: Client) => c.nc.publish(s),
    ...stricter(SUBJECT),
  })),
  ...['a b', 'a\tb'].map((reply) => ({
    call: `publish with reply ${JSON.stringify(reply)}`,
    run: (c: Client) => c.nc.publish('a', '', { reply }),
    theirs: SUBJECT,
  })),
  ...['', 'r.x'].map((reply) => ({
    call: `publish with reply ${JSON.stringify(reply)}`,
    run: (c: Client) => c.nc.publish('a', '', { reply }),
    theirs: ACCEPTED,
  })),
  {
    call: "publish with reply 'a..b'",
    run: (c) => c.nc.publish('a', '', { reply: 'a..b' }),
    ...stricter(SUBJECT),
  },
  {
    call: "publishMessage to ''",
    run: (c) => c.nc.publishMessage({ subject: '', data: new Uint8Array() } as unknown as Msg),
    theirs: SUBJECT,
  },
  {
    call: "respondMessage to 'a b'",
    run: (c) => c.nc.respondMessage({ subject: 'a', reply: 'a b', data: new Uint8Array() } as Msg),
    theirs: SUBJECT,
  },

  // subscribe
  ...['', ...whitespace].map((s) => ({
    call: `subscribe(${JSON.stringify(s)})`,
    run: (c: Client) => c.nc.subscribe(s),
    theirs: SUBJECT,
  })),
  ...['a.*', 'a.>', '>', '*'].map((s) => ({
    call: `subscribe(${JSON.stringify(s)})`,
    run: (c: Client) => c.nc.subscribe(s),
    theirs: ACCEPTED,
  })),
  ...[...emptyTokens, 'a.>.b'].map((s) => ({
    call: `subscribe(${JSON.stringify(s)})`,
    run: (c: Client) => c.nc.subscribe(s),
    ...stricter(SUBJECT),
  })),
  ...['q', '', 'q.x'].map((queue) => ({
    call: `subscribe with queue ${JSON.stringify(queue)}`,
    run: (c: Client) => c.nc.subscribe('a', { queue }),
    theirs: ACCEPTED,
  })),
  // nats.js sends these and the server takes the words apart: the queue would be 'a'.
  ...['a b', 'a\tb'].map((queue) => ({
    call: `subscribe with queue ${JSON.stringify(queue)}`,
    run: (c: Client) => c.nc.subscribe('a', { queue }),
    ...stricter(ARGUMENT),
  })),

  // request / requestMany (timeouts are short: a no-responders answer ends them at once)
  ...['', 'a b'].map((s) => ({
    call: `request(${JSON.stringify(s)})`,
    run: (c: Client) => c.nc.request(s, '', { timeout: 2000 }),
    theirs: SUBJECT,
  })),
  {
    call: "request('a.b')",
    run: (c) => c.nc.request('a.b', '', { timeout: 2000 }),
    theirs: ACCEPTED,
  },
  {
    call: "request('a..b')",
    run: (c) => c.nc.request('a..b', '', { timeout: 2000 }),
    ...stricter(SUBJECT),
  },
  {
    call: "request('a b', { noMux })",
    run: (c) => c.nc.request('a b', '', { timeout: 2000, noMux: true }),
    theirs: SUBJECT,
  },
  {
    call: "request with reply 'r.x' but no noMux",
    run: (c) => c.nc.request('a.b', '', { timeout: 2000, reply: 'r.x' }),
    theirs: ARGUMENT,
  },
  {
    call: "request with noMux and reply 'a b'",
    run: (c) => c.nc.request('a.b', '', { timeout: 2000, noMux: true, reply: 'a b' }),
    theirs: SUBJECT,
  },
  {
    call: "request with noMux and reply 'r.x'",
    run: (c) => c.nc.request('a.b', '', { timeout: 2000, noMux: true, reply: 'r.x' }),
    theirs: ACCEPTED,
  },
  ...['', 'a b'].flatMap((s) =>
    [false, true].map((noMux) => ({
      call: `requestMany(${JSON.stringify(s)}${noMux ? ', { noMux }' : ''})`,
      run: (c: Client) => c.nc.requestMany(s, '', { maxWait: 2000, noMux }),
      theirs: SUBJECT,
    })),
  ),
  {
    call: "requestMany('a.b')",
    run: (c) => c.nc.requestMany('a.b', '', { maxWait: 2000 }),
    theirs: ACCEPTED,
  },
  {
    call: "requestMany('a..b')",
    run: (c) => c.nc.requestMany('a..b', '', { maxWait: 2000 }),
    ...stricter(SUBJECT),
  },

  // msg.respond, on a message that arrived with the reply subject
  {
    call: "respond to reply 'r.x'",
    run: async (c) => (await c.receiveWithReply('r.x')).respond('ok'),
    theirs: ACCEPTED,
  },
  ...['a..b', 'r.*'].map((reply) => ({
    call: `respond to reply ${JSON.stringify(reply)}`,
    run: async (c: Client) => (await c.receiveWithReply(reply)).respond('ok'),
    ...stricter(SUBJECT),
  })),
  {
    // nats.js checks nothing here: the PUB line goes out with the space in it.
    call: "respond with reply option 'a b'",
    run: async (c) => (await c.receiveWithReply('r.x')).respond('ok', { reply: 'a b' }),
    ...stricter(SUBJECT),
  },

  // services: names are letters, digits, - and _; subjects are checked for spaces and '>'
  ...['', 'a.b', 'a b', 'a*'].map((name) => ({
    call: `addService name ${JSON.stringify(name)}`,
    run: (c: Client) => c.addService({ ...service, name }),
    ...SERVICES_PLAIN,
  })),
  {
    call: "addService name 'svc-1_x'",
    run: (c) => c.addService({ ...service, name: 'svc-1_x' }),
    theirs: ACCEPTED,
  },
  {
    call: "addService version 'one'",
    run: (c) => c.addService({ ...service, version: 'one' }),
    ...SERVICES_PLAIN,
  },
  ...['a.b', 'a b'].map((queue) => ({
    call: `addService queue ${JSON.stringify(queue)}`,
    run: (c: Client) => c.addService({ ...service, queue }),
    ...SERVICES_PLAIN,
  })),
  {
    call: "addService queue ''",
    run: (c) => c.addService({ ...service, queue: '' }),
    theirs: ACCEPTED,
  },
  ...['', 'a.b', 'a b'].map((name) => ({
    call: `addEndpoint name ${JSON.stringify(name)}`,
    run: async (c: Client) => (await c.addService(service)).addEndpoint(name, () => {}),
    ...SERVICES_PLAIN,
  })),
  ...['a b', 'a.>.b'].map((subject) => ({
    call: `addEndpoint subject ${JSON.stringify(subject)}`,
    run: async (c: Client) =>
      (await c.addService(service)).addEndpoint('ep', { subject, handler: () => {} }),
    ...SERVICES_PLAIN,
  })),
  ...['', 'a.*', '>', 'ep.x'].map((subject) => ({
    call: `addEndpoint subject ${JSON.stringify(subject)}`,
    run: async (c: Client) =>
      (await c.addService(service)).addEndpoint('ep', { subject, handler: () => {} }),
    theirs: ACCEPTED,
  })),
  {
    // Not a space, so nats.js's service check passes it on to subscribe, which refuses it.
    call: "addEndpoint subject 'a\\tb'",
    run: async (c) =>
      (await c.addService(service)).addEndpoint('ep', { subject: 'a\tb', handler: () => {} }),
    theirs: SUBJECT,
  },
  {
    call: "addEndpoint subject 'a..b'",
    run: async (c) =>
      (await c.addService(service)).addEndpoint('ep', { subject: 'a..b', handler: () => {} }),
    ...stricter(SUBJECT),
  },
  {
    call: "addEndpoint queue 'a b'",
    run: async (c) =>
      (await c.addService(service)).addEndpoint('ep', { queue: 'a b', handler: () => {} }),
    ...stricter(ARGUMENT),
  },
  ...['a b', '>', 'g.>'].map((name) => ({
    call: `addGroup(${JSON.stringify(name)})`,
    run: async (c: Client) => (await c.addService(service)).addGroup(name),
    ...SERVICES_PLAIN,
  })),
  {
    call: "addGroup('g').addGroup('a b')",
    run: async (c) => (await c.addService(service)).addGroup('g').addGroup('a b'),
    ...SERVICES_PLAIN,
  },
  ...['', 'g', 'g.*'].map((name) => ({
    call: `addGroup(${JSON.stringify(name)}).addEndpoint('ep')`,
    run: async (c: Client) => (await c.addService(service)).addGroup(name).addEndpoint('ep'),
    theirs: ACCEPTED,
  })),
  {
    call: "addGroup('a..b').addEndpoint('ep')",
    run: async (c) => (await c.addService(service)).addGroup('a..b').addEndpoint('ep'),
    ...stricter(SUBJECT),
  },
  {
    call: "addGroup('g', 'a b').addEndpoint('ep')",
    run: async (c) => (await c.addService(service)).addGroup('g', 'a b').addEndpoint('ep'),
    ...stricter(ARGUMENT),
  },

  // inbox prefixes: nats.js refuses wildcard tokens only
  ...['', 'my.inbox'].map((prefix) => ({
    call: `createInbox(${JSON.stringify(prefix)})`,
    run: (c: Client) => c.createInbox(prefix),
    theirs: ACCEPTED,
  })),
  ...['a.*', '>'].map((prefix) => ({
    call: `createInbox(${JSON.stringify(prefix)})`,
    run: (c: Client) => c.createInbox(prefix),
    theirs: ARGUMENT,
  })),
  ...['a..b', 'a b'].map((prefix) => ({
    call: `createInbox(${JSON.stringify(prefix)})`,
    run: (c: Client) => c.createInbox(prefix),
    ...stricter(ARGUMENT),
  })),
  {
    call: "connect with inboxPrefix 'a.>'",
    run: (c) => c.connectWith({ inboxPrefix: 'a.>' }),
    theirs: ARGUMENT,
  },
  {
    call: "connect with inboxPrefix 'my.inbox'",
    run: (c) => c.connectWith({ inboxPrefix: 'my.inbox' }),
    theirs: ACCEPTED,
  },

  // service discovery: names and ids are checked like service names
  ...[[], ['svc'], ['', ''], ['svc', 'ID1']].map((args) => ({
    call: `ping(${args.map((a) => JSON.stringify(a)).join(', ')})`,
    run: (c: Client) => c.ping(...args),
    theirs: ACCEPTED,
  })),
  ...[['a.b'], ['a b'], ['svc', 'a.b'], [undefined, 'ID1'], ['', 'ID1']].map((args) => ({
    call: `ping(${args.map((a) => JSON.stringify(a) ?? 'undefined').join(', ')})`,
    run: (c: Client) => c.ping(...args),
    ...SERVICES_PLAIN,
  })),
];

describe('public entry points validate their arguments like nats.js v3', () => {
  let server: NatsServer;
  /** Publishes the messages receiveWithReply waits for (nats.js sends any reply without spaces). */
  let sender: Awaited<ReturnType<typeof officialConnect>>;
  beforeAll(async () => {
    server = await startServer({ host: '127.0.0.1', port: 0, logger: silentLogger });
    sender = await officialConnect({ servers: server.url });
  });
  afterAll(async () => {
    await sender?.close();
    await server?.close();
  });

  const receiveWithReply = (nc: NatsConnection) => async (reply: string) => {
    const subject = createInbox();
    const sub = nc.subscribe(subject, { max: 1 });
    await nc.flush();
    sender.publish(subject, 'request', { reply });
    for await (const msg of sub) return msg;
    throw new Error(`no message with reply ${reply} arrived`);
  };

  const clients = {
    theirs: async (): Promise<Client> => {
      const nc = (await officialConnect({ servers: server.url })) as unknown as NatsConnection;
      const svcm = new Svcm(nc as never);
      return {
        nc,
        addService: (config) => svcm.add(config as never) as unknown as Promise<Service>,
        ping: (name, id) => svcm.client().ping(name, id),
        receiveWithReply: receiveWithReply(nc),
        createInbox: officialCreateInbox,
        connectWith: async (options) =>
          (await officialConnect({ servers: server.url, ...options })).close(),
      };
    },
    ours: async (): Promise<Client> => {
      const nc = await connect({ servers: server.url });
      return {
        nc,
        addService: (config) => addService(nc, config),
        ping: (name, id) => serviceClient(nc).ping(name, id),
        receiveWithReply: receiveWithReply(nc),
        createInbox,
        connectWith: async (options) =>
          (await connect({ servers: server.url, ...options })).close(),
      };
    },
  };

  /** Runs the call on a fresh connection (a refused call must not depend on earlier ones). */
  async function attempt(
    side: keyof typeof clients,
    run: Case['run'],
  ): Promise<{ outcome: Outcome; error?: unknown }> {
    const client = await clients[side]();
    try {
      await run(client);
      return { outcome: ACCEPTED };
    } catch (error) {
      const name = (error as Error).name;
      return AFTER_SENDING.has(name) ? { outcome: ACCEPTED } : { outcome: name, error };
    } finally {
      await client.nc.close();
    }
  }

  it.each(cases)('$call', async ({ run, theirs, ours = theirs }) => {
    const official = await attempt('theirs', run);
    const mine = await attempt('ours', run);
    expect({ theirs: official.outcome, ours: mine.outcome }).toEqual({ theirs, ours });
    if (ours !== ACCEPTED) {
      // Our refusals are our own classes, the ones of the same name in `errors`.
      expect(mine.error).toBeInstanceOf(errors[ours as keyof typeof errors]);
    }
  });
});
