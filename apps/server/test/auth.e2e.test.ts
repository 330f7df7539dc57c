import {
  connect,
  type NatsConnection,
  type NodeConnectionOptions,
  nkeyAuthenticator,
  nkeys,
} from '@nats-io/transport-node';
import { type RunningNatsServer, startNatsServer } from '@slipstream/test-servers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configServers } from './config-servers.js';

// One config file per auth method, run by nats-server 2.9.10 and by the slipstream-server bin
// alike; the official client then connects to each the same way.

/** bcrypt of "s3cret" at cost 4, in the `$2a$` form `nats server passwd` prints. */
const s3cretHash = '$2a$04$AFgXGPGQSbwxJJDN6xvuAudibsQOaxHWUp6hx6z2ZOyGHfhCk83pO';
const nkeyUser = nkeys.createUser();

const usersConfig = `
no_auth_user: visitor
authorization {
  default_permissions: { publish: "public.>", subscribe: ["public.>", "_INBOX.>"] }
  users: [
    { user: alice, password: wonderland, permissions: { publish: ">", subscribe: ">" } }
    { user: bob, password: "${s3cretHash}" }
    { nkey: ${nkeyUser.getPublicKey()}, permissions: { subscribe: "svc.>", allow_responses: true } }
    { user: visitor, password: "" }
  ]
}
`;

const tokenConfig = `authorization { token: "${s3cretHash}" }`;

describe.each(configServers)('the official client against $name', ({ bin }) => {
  let withUsers: RunningNatsServer;
  let withToken: RunningNatsServer;
  const open: NatsConnection[] = [];

  beforeAll(async () => {
    [withUsers, withToken] = await Promise.all([
      startNatsServer({ bin, config: usersConfig }),
      startNatsServer({ bin, config: tokenConfig }),
    ]);
  });
  afterAll(async () => {
    await Promise.all(open.map((nc) => nc.close()));
    await Promise.all([withUsers?.stop(), withToken?.stop()]);
  });

  async function client(server: RunningNatsServer, options: NodeConnectionOptions = {}) {
    const nc = await connect({ servers: server.url, reconnect: false, ...options });
    open.push(nc);
    return nc;
  }

  /** The error the official client reports for a connection the server refuses. */
  async function refusal(server: RunningNatsServer, options: NodeConnectionOptions) {
    return client(server, options).then(
      () => 'connected',
      (error: Error) => `${error.name}: ${error.message}`,
    );
  }

  it('connects with a plain password, a bcrypt-hashed one and a bcrypt-hashed token', async () => {
    await (await client(withUsers, { user: 'alice', pass: 'wonderland' })).flush();
    await (await client(withUsers, { user: 'bob', pass: 's3cret' })).flush();
    await (await client(withToken, { token: 's3cret' })).flush();
  });

  it('refuses wrong credentials with Authorization Violation', async () => {
    const refused = 'AuthorizationError: Authorization Violation';
    expect(await refusal(withUsers, { user: 'alice', pass: 's3cret' })).toBe(refused);
    expect(await refusal(withUsers, { user: 'bob', pass: s3cretHash })).toBe(refused);
    expect(await refusal(withToken, { token: s3cretHash })).toBe(refused);
    expect(
      await refusal(withUsers, { authenticator: nkeyAuthenticator(nkeys.createUser().getSeed()) }),
    ).toBe(refused);
  });

  it('signs the nonce with an nkey seed, and answers requests under allow_responses', async () => {
    const service = await client(withUsers, {
      authenticator: nkeyAuthenticator(nkeyUser.getSeed()),
    });
    service.subscribe('svc.echo', { callback: (_error, msg) => void msg.respond(msg.data) });
    await service.flush();
    const asker = await client(withUsers, { user: 'alice', pass: 'wonderland' });
    const reply = await asker.request('svc.echo', 'ping', { timeout: 2000 });
    expect(reply.string()).toBe('ping');
  });

  it('takes a client without credentials for no_auth_user, with the default permissions', async () => {
    const visitor = await client(withUsers);
    const denied = visitor.subscribe('private.x');
    // The official client ends the subscription with the server's error as the result.
    const ended = await denied.closed;
    expect(ended instanceof Error && `${ended.name}: ${ended.message}`).toBe(
      'PermissionViolationError: Permissions Violation for Subscription to "private.x"',
    );
    const allowed = visitor.subscribe('public.news', { max: 1 });
    await visitor.flush();
    await visitor.publish('public.news', 'hello');
    for await (const msg of allowed) expect(msg.string()).toBe('hello');
  });
});
