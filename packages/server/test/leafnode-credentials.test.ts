import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, credsAuthenticator } from '@nats-io/transport-node';
import { freePort, startNatsServer, TestOperator } from '@slipstream/test-servers';
import bcrypt from 'bcryptjs';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import {
  eventually,
  firstDelivery,
  type LeafTestServer,
  natsServerHub,
  natsServerWith,
  ourHub,
  ourLeaf,
} from './leafnode-support.js';
import type { OfficialConnection } from './official-connection.js';

const running: { stop(): Promise<void> }[] = [];
const connections: OfficialConnection[] = [];
afterEach(async () => {
  await Promise.all(connections.splice(0).map((nc) => nc.close().catch(() => undefined)));
  for (const server of running.splice(0).reverse()) await server.stop();
});

/** Writes `text` to a temporary .creds file, removed when the test ends. */
function credsFile(text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'leaf-creds-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'leaf.creds');
  writeFileSync(file, text);
  return file;
}

/** An operator-mode nats-server hub whose account APP the leaf logs in to with a .creds file. */
async function operatorHub() {
  const operator = new TestOperator();
  const app = operator.account('APP');
  const leafPort = await freePort();
  const hub = await startNatsServer({
    config: `${operator.config()}\nleafnodes { host: 127.0.0.1, port: ${leafPort} }`,
  });
  running.push(hub);
  return { operator, app, hub, leafPort };
}

describe('our leaf logging in to an operator-mode nats-server hub with credentials', () => {
  it('binds our $G to the account of the credentials, both ways', async () => {
    const { app, hub, leafPort } = await operatorHub();
    const leaf: LeafTestServer = await ourLeaf(leafPort, {
      credentials: credsFile(app.user('leaf').creds),
    });
    running.push(leaf);
    const onHub = await connect({
      servers: hub.url,
      authenticator: credsAuthenticator(new TextEncoder().encode(app.user('client').creds)),
    });
    connections.push(onHub);
    const onLeaf = await connect({ servers: leaf.url });
    connections.push(onLeaf);
    const up = onHub.subscribe('up');
    expect((await firstDelivery(onLeaf, 'up', up, 'from the edge')).string()).toBe('from the edge');
    const down = onLeaf.subscribe('down');
    expect((await firstDelivery(onHub, 'down', down, 'from the hub')).string()).toBe(
      'from the hub',
    );
  });

  it('is refused with credentials the hub does not trust, and logs why', async () => {
    const { leafPort } = await operatorHub();
    const stranger = new TestOperator().account('OTHER').user('leaf');
    const leaf = await ourLeaf(leafPort, { credentials: credsFile(stranger.creds) });
    running.push(leaf);
    await eventually(() =>
      expect(leaf.output()).toContain("Leafnode Error 'Authorization Violation'"),
    );
  });

  it('logs a credentials file that is not one, and does not connect', async () => {
    const { leafPort } = await operatorHub();
    const leaf = await ourLeaf(leafPort, { credentials: credsFile('not a creds file\n') });
    running.push(leaf);
    await eventually(() => expect(leaf.output()).toMatch(/credentials file .* malformed/));
  });
});

describe('a bcrypt hash as a leafnodes authorization password', () => {
  // Cost 4, the lowest bcrypt allows: checked the same way, only faster.
  const hash = bcrypt.hashSync('s3cret', 4);
  it.each([
    {
      name: 'nats-server',
      hub: () => natsServerHub(`authorization { user: leaf, password: "${hash}" }`),
    },
    { name: 'ours (user)', hub: () => ourHub({ user: 'leaf', password: hash }) },
    { name: 'ours (users)', hub: () => ourHub({ users: [{ user: 'leaf', password: hash }] }) },
  ])('checks the password against it on a $name hub', async ({ hub: start }) => {
    const hub = await start();
    running.push(hub);
    const wrong = await natsServerWith(
      `remotes = [ { url: "nats-leaf://leaf:${encodeURIComponent(hash)}@127.0.0.1:${hub.leafPort}" } ]`,
    );
    running.push(wrong);
    const right = await natsServerWith(
      `reconnect: 1, remotes = [ { url: "nats-leaf://leaf:s3cret@127.0.0.1:${hub.leafPort}" } ]`,
    );
    running.push(right);
    const onHub = await connect({ servers: hub.url });
    connections.push(onHub);
    const onLeaf = await connect({ servers: right.url });
    connections.push(onLeaf);
    await firstDelivery(onLeaf, 'up', onHub.subscribe('up'));
    // The hash itself is no password.
    await eventually(() => expect(wrong.output()).toContain('Authorization Violation'));
  });
});

describe('our hub without leafnodes authorization logs leaves in as it logs in clients', () => {
  it("binds a nats-server leaf logging in as an account's user to that account", async () => {
    const hub = await ourHub(undefined, {
      accounts: {
        A: {
          users: [
            { user: 'leaf', pass: 'pw' },
            { user: 'app', pass: 'app' },
          ],
        },
        B: { users: [{ user: 'other', pass: 'other' }] },
      },
    });
    running.push(hub);
    const leaf = await natsServerWith(
      `remotes = [ { url: "nats-leaf://leaf:pw@127.0.0.1:${hub.leafPort}" } ]`,
    );
    running.push(leaf);
    const onHub = await connect({ servers: hub.url, user: 'app', pass: 'app' });
    connections.push(onHub);
    const onLeaf = await connect({ servers: leaf.url });
    connections.push(onLeaf);
    const up = onHub.subscribe('up');
    expect((await firstDelivery(onLeaf, 'up', up, 'into A')).string()).toBe('into A');
    expect(hub.output()).toMatch(/registered for account: A/);
  });

  it("refuses a wrong password of an account's user", async () => {
    const hub = await ourHub(undefined, {
      accounts: { A: { users: [{ user: 'leaf', pass: 'pw' }] } },
    });
    running.push(hub);
    const leaf = await natsServerWith(
      `remotes = [ { url: "nats-leaf://leaf:wrong@127.0.0.1:${hub.leafPort}" } ]`,
    );
    running.push(leaf);
    await eventually(() => expect(leaf.output()).toContain('Authorization Violation'));
    expect(hub.output()).not.toMatch(/registered for account/);
  });

  it('logs a nats-server leaf in with a .creds file in operator mode', async () => {
    const operator = new TestOperator();
    const app = operator.account('APP');
    const hub = await ourHub(undefined, {
      operator: { jwts: [operator.jwt], resolver: { type: 'memory', preload: operator.preload() } },
      systemAccount: operator.system.publicKey,
    });
    running.push(hub);
    const creds = credsFile(app.user('leaf').creds);
    const leaf = await natsServerWith(
      `remotes = [ { url: "nats-leaf://127.0.0.1:${hub.leafPort}", credentials: "${creds}" } ]`,
    );
    running.push(leaf);
    const onHub = await connect({
      servers: hub.url,
      authenticator: credsAuthenticator(new TextEncoder().encode(app.user('client').creds)),
    });
    connections.push(onHub);
    const onLeaf = await connect({ servers: leaf.url });
    connections.push(onLeaf);
    const down = onLeaf.subscribe('down');
    expect((await firstDelivery(onHub, 'down', down, 'to the edge')).string()).toBe('to the edge');
    expect(hub.output()).toContain(`registered for account: ${app.publicKey}`);
  });
});
