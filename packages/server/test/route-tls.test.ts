import { readFile } from 'node:fs/promises';
import { makeTestCertificates, type TestCertificates } from '@slipstream/test-servers';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { client, eventually, firstDelivery } from './leafnode-support.js';
import type { OfficialConnection } from './official-connection.js';
import { RawClient } from './raw-client.js';
import { type ClusterMember, clusterPorts, natsMember, ourMember } from './route-support.js';

let certs: TestCertificates;
beforeAll(async () => {
  certs = await makeTestCertificates();
});
afterAll(() => certs.remove());

const running: ClusterMember[] = [];
const connections: OfficialConnection[] = [];
afterEach(async () => {
  await Promise.all(connections.splice(0).map((nc) => nc.close().catch(() => undefined)));
  for (const member of running.splice(0).reverse()) await member.stop();
});

async function open(member: ClusterMember): Promise<OfficialConnection> {
  const nc = await client(member.url);
  connections.push(nc);
  return nc;
}

/** nats-server's cluster `tls {}`: it verifies routes both ways with this CA. */
const natsTls = () =>
  `tls { cert_file: "${certs.memberCertFile}", key_file: "${certs.memberKeyFile}", ca_file: "${certs.caFile}", timeout: 2 }`;

async function ourTls(ca = certs.caFile) {
  return {
    cert: await readFile(certs.memberCertFile, 'utf8'),
    key: await readFile(certs.memberKeyFile, 'utf8'),
    ca: await readFile(ca, 'utf8'),
  };
}

it('routes over TLS with nats-server members, dialling and dialled', async () => {
  const [dialledPort, ourPort, diallingPort] = await clusterPorts(3);
  const dialled = await natsMember(dialledPort!, [], { extra: natsTls() });
  running.push(dialled);
  const ours = await ourMember(ourPort!, [dialledPort!], { tls: await ourTls() });
  running.push(ours);
  const dialling = await natsMember(diallingPort!, [ourPort!], { extra: natsTls() });
  running.push(dialling);
  const onOurs = await open(ours);
  for (const member of [dialled, dialling]) {
    const sub = onOurs.subscribe(`tls.${member.clusterPort}`);
    const from = await open(member);
    expect((await firstDelivery(from, `tls.${member.clusterPort}`, sub, 'secret')).string()).toBe(
      'secret',
    );
    sub.unsubscribe();
  }
});

it('refuses a route without TLS, and a member whose certificate another CA signed', async () => {
  const [ourPort, waryPort] = await clusterPorts(2);
  const ours = await ourMember(ourPort!, [], { tls: await ourTls() });
  running.push(ours);
  const plain = await RawClient.connect(ourPort!);
  await plain.send('CONNECT {"cluster":"C","name":"PLAIN"}\r\n');
  await plain.waitClosed();
  expect(plain.text).not.toMatch(/INFO/);
  await eventually(() => expect(ours.output()).toMatch(/TLS route handshake error/));
  // A member that trusts only another CA refuses our certificate.
  const wary = await ourMember(waryPort!, [ourPort!], { tls: await ourTls(certs.otherCaFile) });
  running.push(wary);
  await eventually(() =>
    expect(wary.output()).toMatch(
      /Error trying to connect to route \(attempt 1\): TLS route handshake error/,
    ),
  );
  expect(ours.output()).not.toMatch(/Registering remote route/);
});
