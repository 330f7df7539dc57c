import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { connect } from '@nats-io/transport-node';
import {
  freePort,
  makeTestCertificates,
  type RunningNatsServer,
  startNatsServer,
  type TestCertificates,
} from '@slipstream/test-servers';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { configServers } from './config-servers.js';
import { run } from './server-process.js';

// The leafnodes block of a config file, TLS files included, run by the slipstream-server bin as a
// hub and as a leaf, with nats-server 2.9.10 on the other side.

let files: TestCertificates;
beforeAll(async () => {
  files = await makeTestCertificates();
});
afterAll(() => files?.remove());

const running: RunningNatsServer[] = [];
afterEach(async () => {
  for (const server of running.splice(0).reverse()) await server.stop();
});

describe.each(configServers)('a TLS leaf node port of $name', ({ bin: hubBin }) => {
  it.each(configServers)(
    'takes a $name leaf with tls { ca_file } in its remote',
    async ({ bin }) => {
      const leafPort = await freePort();
      const hub = await startNatsServer({
        bin: hubBin,
        config: `leafnodes {
        host: 127.0.0.1
        port: ${leafPort}
        tls { cert_file: "${files.certFile}", key_file: "${files.keyFile}" }
      }`,
      });
      running.push(hub);
      const leaf = await startNatsServer({
        bin,
        config: `leafnodes {
        reconnect: 1
        remotes [ { url: "tls://127.0.0.1:${leafPort}", tls { ca_file: "${files.caFile}" } } ]
      }`,
      });
      running.push(leaf);
      const onHub = await connect({ servers: hub.url });
      const onLeaf = await connect({ servers: leaf.url });
      try {
        const got: string[] = [];
        onHub.subscribe('edge.>', { callback: (_e, m) => void got.push(m.string()) });
        await onHub.flush();
        await vi.waitFor(
          () => {
            onLeaf.publish('edge.reading', 'over tls');
            expect(got).toContain('over tls');
          },
          { timeout: 15_000, interval: 100 },
        );
      } finally {
        await onHub.close();
        await onLeaf.close();
      }
    },
  );
});

describe('slipstream-server -t with a leafnodes block', () => {
  it("names a remote's TLS file it cannot read, and fails", async () => {
    const config = join(files.dir, 'leaf-missing-ca.conf');
    await writeFile(
      config,
      'leafnodes { remotes [ { url: "tls://127.0.0.1:7422", tls { ca_file: "/nonexistent/ca.pem" } } ] }\n',
    );
    const check = run(['-t', '-c', config]);
    expect(await check.exit).toBe(1);
    expect(check.output()).toContain('cannot read the TLS CA certificate "/nonexistent/ca.pem"');
  });

  it('passes a valid one', async () => {
    const config = join(files.dir, 'leaf-ok.conf');
    await writeFile(
      config,
      `leafnodes { port: 7422, tls { cert_file: "${files.certFile}", key_file: "${files.keyFile}" } }\n`,
    );
    const check = run(['-t', '-c', config]);
    expect(await check.exit).toBe(0);
  });
});
