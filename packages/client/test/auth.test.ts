import { createUser } from '@nats-io/nkeys';
import { type RunningNatsServer, startNatsServer } from '@slipstream/test-servers';
import { afterAll, describe, expect, it } from 'vitest';
import {
  AuthorizationError,
  connect,
  credsAuthenticator,
  jwtAuthenticator,
  nkeyAuthenticator,
  PermissionViolationError,
  type Status,
  tokenAuthenticator,
  UserAuthenticationExpiredError,
  usernamePasswordAuthenticator,
} from '../src/node.js';
import { operatorSetup } from './jwt-fixtures.js';
import {
  type SimpleAuth,
  type SuiteServer,
  serverKinds,
  slipstreamServerBin,
  waitFor,
} from './servers.js';

describe.each(serverKinds)('user/password and token authentication against $name', (kind) => {
  const running: SuiteServer[] = [];
  afterAll(async () => {
    for (const s of running) await s.stop();
  });
  const start = async (auth: SimpleAuth) => {
    const server = await kind.start(auth);
    running.push(server);
    return server;
  };

  it('user and password', async () => {
    const server = await start({ user: 'a', pass: 'b' });
    const nc = await connect({ servers: server.url, user: 'a', pass: 'b' });
    await nc.flush();
    await nc.close();
    const refused = await connect({ servers: server.url, user: 'a', pass: 'wrong' }).catch(
      (e) => e,
    );
    expect(refused).toBeInstanceOf(AuthorizationError);
    expect(refused.code).toBe('AUTHORIZATION_VIOLATION');
    const anonymous = await connect({ servers: server.url }).catch((e) => e);
    expect(anonymous).toBeInstanceOf(AuthorizationError);
  });

  it('token', async () => {
    const server = await start({ token: 's3cret' });
    const nc = await connect({ servers: server.url, token: 's3cret' });
    await nc.flush();
    await nc.close();
    const viaAuthenticator = await connect({
      servers: server.url,
      authenticator: tokenAuthenticator(() => 's3cret'),
    });
    await viaAuthenticator.close();
    await expect(connect({ servers: server.url, token: 'nope' })).rejects.toBeInstanceOf(
      AuthorizationError,
    );
  });
});

/** A server run from a config file: nats-server, or the slipstream-server command reading the same file. */
function configServers(bin: string | undefined) {
  const servers: RunningNatsServer[] = [];
  afterAll(async () => {
    for (const s of servers) await s.stop();
  });
  const track = (server: RunningNatsServer) => {
    servers.push(server);
    return server;
  };
  return {
    start: async (config: string) => track(await startNatsServer({ config, bin })),
    /** Stops a restarted server (a new process) after the tests too. */
    track,
  };
}

describe.each([
  { name: 'nats-server 2.9.10', bin: undefined },
  { name: 'the slipstream-server command', bin: slipstreamServerBin },
])('NKey, users, permissions and re-authentication against $name', ({ bin }) => {
  const { start, track } = configServers(bin);

  it('nkey: signs the server nonce', async () => {
    const user = createUser();
    const server = await start(`authorization { users = [ { nkey: ${user.getPublicKey()} } ] }`);
    const nc = await connect({
      servers: server.url,
      authenticator: nkeyAuthenticator(user.getSeed()),
    });
    await nc.flush();
    await nc.close();
    const stranger = createUser();
    await expect(
      connect({ servers: server.url, authenticator: nkeyAuthenticator(stranger.getSeed()) }),
    ).rejects.toBeInstanceOf(AuthorizationError);
  });

  it('evaluates the authenticator again at every reconnect', async () => {
    const server = await start(
      'authorization { users = [ { user: a, password: one }, { user: b, password: two } ] }',
    );
    const calls: string[] = [];
    let user = 'a';
    const authenticator = (nonce?: string) => {
      calls.push(user);
      return usernamePasswordAuthenticator(user, user === 'a' ? 'one' : 'two')(nonce);
    };
    const nc = await connect({ servers: server.url, authenticator, reconnectTimeWait: 50 });
    const statuses: string[] = [];
    void (async () => {
      for await (const s of nc.status()) statuses.push(s.type);
    })();
    user = 'b';
    const restarted = await server.restart();
    track(restarted);
    await waitFor(() => statuses.includes('reconnect'), 'reconnect');
    expect(calls[0]).toBe('a');
    expect(calls.at(-1)).toBe('b');
    await nc.close();
  });

  it('stops reconnecting when the same credentials are refused twice', async () => {
    const server = await start('authorization { user: a, password: b }');
    let pass = 'b';
    const nc = await connect({
      servers: server.url,
      authenticator: usernamePasswordAuthenticator('a', () => pass),
      reconnectTimeWait: 20,
    });
    pass = 'revoked';
    track(await server.restart());
    expect(await nc.closed()).toBeInstanceOf(AuthorizationError);
  });

  it('reports permission violations as typed errors and ends the denied subscription', async () => {
    const server = await start(
      'authorization { users = [ { user: a, password: b, permissions: { publish: { deny: "secret" }, subscribe: { deny: "hidden" } } } ] }',
    );
    const nc = await connect({ servers: server.url, user: 'a', pass: 'b' });
    const events: Status[] = [];
    void (async () => {
      for await (const s of nc.status()) events.push(s);
    })();
    const sub = nc.subscribe('hidden');
    const ended = (async () => {
      for await (const _ of sub) {
      }
    })();
    await expect(ended).rejects.toBeInstanceOf(PermissionViolationError);
    nc.publish('secret');
    await nc.flush();
    await waitFor(() => events.filter((e) => e.type === 'error').length >= 2, 'two error statuses');
    const errors = events.flatMap((e) =>
      e.type === 'error' ? [e.error as PermissionViolationError] : [],
    );
    expect(errors.map((e) => [e.operation, e.subject])).toEqual([
      ['subscription', 'hidden'],
      ['publish', 'secret'],
    ]);
    expect(nc.isClosed()).toBe(false);

    // A request whose publish is refused fails with the violation instead of timing out.
    for (const noMux of [false, true]) {
      const refused = await nc.request('secret', '', { timeout: 30_000, noMux }).catch((e) => e);
      expect(refused).toBeInstanceOf(PermissionViolationError);
      expect([refused.operation, refused.subject]).toEqual(['publish', 'secret']);
    }
    const many = await nc.requestMany('secret', '', { maxWait: 30_000 });
    const collect = async () => {
      for await (const _ of many) {
      }
    };
    await expect(collect()).rejects.toBeInstanceOf(PermissionViolationError);
    expect(nc.isClosed()).toBe(false);
    await nc.close();
  });
});

// Operator mode (JWT) is not implemented by our server yet: these run against nats-server only.
describe('JWT and creds against nats-server 2.9.10', () => {
  const { start } = configServers(undefined);

  it('JWT signed with the user seed, and creds files (operator mode)', async () => {
    const setup = operatorSetup();
    const server = await start(setup.config);
    const viaJwt = await connect({
      servers: server.url,
      authenticator: jwtAuthenticator(setup.userJwt, setup.userSeed),
    });
    await viaJwt.flush();
    await viaJwt.close();
    const viaCreds = await connect({
      servers: server.url,
      authenticator: credsAuthenticator(setup.creds),
    });
    await viaCreds.flush();
    await viaCreds.close();
    const otherSeed = createUser().getSeed();
    await expect(
      connect({ servers: server.url, authenticator: jwtAuthenticator(setup.userJwt, otherSeed) }),
    ).rejects.toBeInstanceOf(AuthorizationError);
  });

  it('reports an expired user JWT as UserAuthenticationExpiredError', async () => {
    const setup = operatorSetup({ userExpiresInSeconds: 2 });
    const server = await start(setup.config);
    const nc = await connect({
      servers: server.url,
      authenticator: jwtAuthenticator(setup.userJwt, setup.userSeed),
      reconnectTimeWait: 50,
    });
    const events: Status[] = [];
    void (async () => {
      for await (const s of nc.status()) events.push(s);
    })();
    await waitFor(
      () =>
        events.some((e) => e.type === 'error' && e.error instanceof UserAuthenticationExpiredError),
      'the expiry error',
    );
    const expired = events.flatMap((e) => (e.type === 'error' ? [e.error] : []))[0];
    expect((expired as UserAuthenticationExpiredError).code).toBe('AUTHENTICATION_EXPIRED');
    // The same JWT is refused on every reconnect, so the connection ends with that refusal: an
    // authorization violation, or the expiry again when a reconnect reached the server in the
    // last moments of the JWT's final second (its CONNECT still valid, its timer due at once).
    const closedWith = await nc.closed();
    expect(
      closedWith instanceof AuthorizationError ||
        closedWith instanceof UserAuthenticationExpiredError,
      String(closedWith),
    ).toBe(true);
  });
});
