import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, credsAuthenticator } from '@nats-io/transport-node';
import { TestOperator } from '@slipstream/test-servers';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import type { PermissionsOptions } from '../src/index.js';
import {
  collect,
  firstDelivery,
  type LeafTestServer,
  natsServerHub,
  natsServerWith,
  ourHub,
  ourLeaf,
} from './leafnode-support.js';
import type { OfficialConnection } from './official-connection.js';
import { RawClient } from './raw-client.js';

const running: LeafTestServer[] = [];
const connections: OfficialConnection[] = [];
const sockets: RawClient[] = [];
afterEach(async () => {
  for (const raw of sockets.splice(0)) raw.close();
  await Promise.all(connections.splice(0).map((nc) => nc.close().catch(() => undefined)));
  for (const server of running.splice(0).reverse()) await server.stop();
});

async function open(server: LeafTestServer, login = false): Promise<OfficialConnection> {
  const nc = await connect({ servers: server.url, ...(login ? { user: 'app', pass: 'pw' } : {}) });
  connections.push(nc);
  return nc;
}

/** The leaf's user: it may send up.> to the hub, and receive down.> from it. */
const leafPermissions: PermissionsOptions = {
  publish: { allow: ['up.>'] },
  subscribe: { allow: ['down.>'] },
};

/** nats-server applies a client user's permissions to a leaf that logs in as that user. */
const natsServerAuthorization = `authorization { users = [
  { user: leaf, password: pw, permissions: { publish: { allow: ["up.>"] }, subscribe: { allow: ["down.>"] } } }
  { user: app, password: pw }
] }`;

const hubs = {
  'nats-server': () => natsServerHub('', natsServerAuthorization),
  ours: () =>
    ourHub(undefined, {
      authorization: {
        users: [
          { user: 'leaf', pass: 'pw', permissions: leafPermissions },
          { user: 'app', pass: 'pw' },
        ],
      },
    }),
};

const leaves = {
  'nats-server': (port: number) =>
    natsServerWith(`reconnect: 1, remotes = [ { url: "nats-leaf://leaf:pw@127.0.0.1:${port}" } ]`),
  ours: (port: number) => ourLeaf(port, { urls: [`nats-leaf://leaf:pw@127.0.0.1:${port}`] }),
};

/**
 * Sends the allowed subjects both ways, and the others between them: the allowed ones arrive,
 * and the others, which would have come first, never do.
 */
async function expectOnlyPermittedTraffic(onHub: OfficialConnection, onLeaf: OfficialConnection) {
  // Subscribers of everything: their interest reaches the other side (a wildcard broader than
  // the allowed subjects is let through, as nats-server does), so only the permissions keep
  // the other subjects back.
  const atHub = collect(onHub.subscribe('>'));
  const atLeaf = collect(onLeaf.subscribe('>'));
  await firstDelivery(onLeaf, 'up.1', onHub.subscribe('up.1'));
  await firstDelivery(onHub, 'down.1', onLeaf.subscribe('down.1'));
  onLeaf.publish('other.1');
  onHub.publish('elsewhere.1');
  await firstDelivery(onLeaf, 'up.2', onHub.subscribe('up.2'));
  await firstDelivery(onHub, 'down.2', onLeaf.subscribe('down.2'));
  const subjects = (got: { subject: string }[], prefix: string) =>
    got.map((msg) => msg.subject).filter((subject) => subject.startsWith(prefix));
  expect(subjects(atHub, 'up.')).toContain('up.2');
  expect(subjects(atHub, 'other.')).toEqual([]);
  expect(subjects(atLeaf, 'down.')).toContain('down.2');
  expect(subjects(atLeaf, 'elsewhere.')).toEqual([]);
}

describe('permissions of the user a leaf logs in as', () => {
  it.each([
    { hub: 'nats-server', leaf: 'nats-server' },
    { hub: 'nats-server', leaf: 'ours' },
    { hub: 'ours', leaf: 'nats-server' },
    { hub: 'ours', leaf: 'ours' },
  ] as const)(
    'limit what crosses: $leaf leaf of $hub hub',
    async ({ hub: hubKind, leaf: leafKind }) => {
      const hub = await hubs[hubKind]();
      running.push(hub);
      const leaf = await leaves[leafKind](hub.leafPort!);
      running.push(leaf);
      await expectOnlyPermittedTraffic(await open(hub, true), await open(leaf));
    },
  );

  it('are also taken from a leafnodes authorization user (ours only)', async () => {
    const hub = await ourHub({
      users: [{ user: 'leaf', password: 'pw', permissions: leafPermissions }],
    });
    running.push(hub);
    const leaf = await leaves['nats-server'](hub.leafPort!);
    running.push(leaf);
    await expectOnlyPermittedTraffic(await open(hub), await open(leaf));
  });
});

describe('permissions of the user JWT a leaf logs in with, in operator mode', () => {
  /** The operator, its account APP with a limited leaf user, the leaf's .creds file. */
  function operatorSetup() {
    const operator = new TestOperator();
    const app = operator.account('APP');
    const leafUser = app.user('leaf', { pub: { allow: ['up.>'] }, sub: { allow: ['down.>'] } });
    const dir = mkdtempSync(join(tmpdir(), 'leaf-perms-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const creds = join(dir, 'leaf.creds');
    writeFileSync(creds, leafUser.creds);
    return { operator, app, creds };
  }

  const operatorHubs = {
    'nats-server': (operator: TestOperator) => natsServerHub('', operator.config()),
    ours: (operator: TestOperator) =>
      ourHub(undefined, {
        operator: {
          jwts: [operator.jwt],
          resolver: { type: 'memory', preload: operator.preload() },
        },
        systemAccount: operator.system.publicKey,
      }),
  };
  const credentialLeaves = {
    'nats-server': (port: number, creds: string) =>
      natsServerWith(
        `reconnect: 1, remotes = [ { url: "nats-leaf://127.0.0.1:${port}", credentials: "${creds}" } ]`,
      ),
    ours: (port: number, creds: string) => ourLeaf(port, { credentials: creds }),
  };

  it.each([
    { hub: 'nats-server', leaf: 'nats-server' },
    { hub: 'nats-server', leaf: 'ours' },
    { hub: 'ours', leaf: 'nats-server' },
    { hub: 'ours', leaf: 'ours' },
  ] as const)(
    'limit what crosses: $leaf leaf of $hub hub',
    async ({ hub: hubKind, leaf: leafKind }) => {
      const { operator, app, creds } = operatorSetup();
      const hub = await operatorHubs[hubKind](operator);
      running.push(hub);
      const leaf = await credentialLeaves[leafKind](hub.leafPort!, creds);
      running.push(leaf);
      const onHub = await connect({
        servers: hub.url,
        authenticator: credsAuthenticator(new TextEncoder().encode(app.user('client').creds)),
      });
      connections.push(onHub);
      await expectOnlyPermittedTraffic(onHub, await open(leaf));
    },
  );
});

describe.each(Object.entries(hubs))(
  'a %s hub with a leaf logged in as a user with permissions',
  (_, start) => {
    async function rawLeaf() {
      const hub = await start();
      running.push(hub);
      const raw = await RawClient.connectAndGreet(hub.leafPort!);
      sockets.push(raw);
      await raw.send(
        'CONNECT {"name":"raw","server_id":"NRAW","headers":true,"user":"leaf","pass":"pw"}\r\nPING\r\n',
      );
      await raw.waitFor('PONG\r\n');
      return { hub, raw };
    }

    it("tells the leaf its user's lists in the INFO after CONNECT: import is subscribe, export publish", async () => {
      const { raw } = await rawLeaf();
      const infos = raw.text
        .split('\r\n')
        .filter((line) => line.startsWith('INFO '))
        .map((line) => JSON.parse(line.slice(5)) as Record<string, unknown>);
      expect(infos.at(-1)).toMatchObject({
        connect_info: true,
        import: { allow: ['down.>'] },
        export: { allow: ['up.>'] },
      });
    });

    it('cuts off a leaf announcing interest in a subject it may not receive', async () => {
      const { hub, raw } = await rawLeaf();
      // A wildcard broader than what it may receive is taken (its messages are pruned)…
      await raw.send('LS+ >\r\nLS+ down.1\r\nPING\r\n');
      await raw.waitFor(/PONG\r\n[\s\S]*PONG\r\n/);
      // …a literal subject outside is a violation.
      await raw.send('LS+ other.1\r\n');
      await raw.waitClosed();
      expect(raw.text).toContain(`-ERR 'Permissions Violation for Subscription to "other.1"'`);
      expect(hub.output()).toContain('Subscription Violation on "other.1"');
    });
  },
);
