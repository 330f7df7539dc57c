// Writes a screenshot of each dashboard page into docs/dashboard/ (shown by the README), so that
// they follow the page as it changes: starts the built server (run the package's build first)
// on 127.0.0.1 with JetStream in a temporary directory, fills it with demo streams, consumers, a
// KV bucket, an object store and some traffic, and opens each page in Chromium.
//   pnpm --filter @slipstream/server build && node packages/server/scripts/dashboard-screenshots.mjs
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AckPolicy, jetstream, jetstreamManager } from '@nats-io/jetstream';
import { Objm } from '@nats-io/obj';
import { connect } from '@nats-io/transport-node';
import { requireSystemComponent } from '@slipstream/test-servers';
import { chromium } from 'playwright-core';
import { silentLogger, startServer } from '../dist/index.js';

const outDir = fileURLToPath(new URL('../docs/dashboard/', import.meta.url));
const storeDir = await mkdtemp(join(tmpdir(), 'slipstream-screenshots-'));
const server = await startServer({
  host: '127.0.0.1',
  port: 0,
  httpPort: 0,
  serverName: 'demo',
  jetstream: { storeDir },
  // Behind basic auth, the dashboard shows message contents and offers its actions.
  monitoringAuth: { user: 'demo', pass: 'demo' },
  dashboard: { actions: true },
  logger: silentLogger,
});
const clients = await Promise.all(
  ['orders-api', 'billing-worker', 'audit-log'].map((name) => connect({ port: server.port, name })),
);
const [api, worker, audit] = clients;
const jsm = await jetstreamManager(api);
const js = jetstream(api);
await jsm.streams.add({ name: 'ORDERS', subjects: ['orders.>'], max_age: 7 * 24 * 3600 * 1e9 });
await jsm.streams.add({
  name: 'EVENTS',
  subjects: ['events.>'],
  storage: 'memory',
  max_msgs: 10_000,
});
await jsm.consumers.add('ORDERS', { durable_name: 'billing', ack_policy: AckPolicy.Explicit });
await jsm.consumers.add('ORDERS', {
  durable_name: 'shipping',
  ack_policy: AckPolicy.Explicit,
  filter_subject: 'orders.eu.>',
});
const regions = ['eu', 'us', 'apac'];
for (let i = 1; i <= 40; i++) {
  const region = regions[i % 3];
  await js.publish(
    `orders.${region}.created`,
    JSON.stringify({ id: i, region, total: (i * 7.3).toFixed(2), items: (i % 4) + 1 }),
  );
}
await jsm.streams.add({
  name: 'KV_config',
  subjects: ['$KV.config.>'],
  max_msgs_per_subject: 5,
  allow_rollup_hdrs: true,
  deny_delete: true,
  allow_direct: true,
});
for (const [key, value] of [
  ['feature.dark-mode', 'on'],
  ['limits.max-orders', '500'],
  ['feature.dark-mode', 'off'],
  ['region.default', 'eu'],
]) {
  await js.publish(`$KV.config.${key}`, value);
}
const files = await new Objm(api).create('assets');
await files.putBlob(
  { name: 'logo.svg' },
  new TextEncoder().encode('<svg xmlns="http://www.w3.org/2000/svg"/>'),
);
await files.putBlob(
  { name: 'report-2026-11.csv' },
  new TextEncoder().encode('id,total\n'.repeat(2000)),
);
worker.subscribe('orders.>', { queue: 'billing' });
audit.subscribe('events.>');
audit.subscribe('orders.*.created');
// Traffic for the sparklines and rates while the pages are open.
let n = 0;
const traffic = setInterval(() => {
  for (let i = 0; i < 20 + (n % 7) * 5; i++)
    api.publish(`events.page.view`, JSON.stringify({ n: n++ }));
}, 100);

const browser = await chromium.launch({
  executablePath: requireSystemComponent('chromium'),
  args: ['--no-sandbox', '--disable-gpu'],
});
await mkdir(outDir, { recursive: true });
const shots = [
  ['overview', '#/'],
  ['connections', '#/connections'],
  ['subjects', '#/subjects'],
  ['streams', '#/streams'],
  ['stream', '#/stream/$G/ORDERS'],
  ['kv', '#/kv/$G/config'],
  ['objects', '#/objects/$G/assets'],
];
try {
  for (const [viewport, suffix] of [
    [{ width: 1280, height: 800 }, ''],
    [{ width: 390, height: 844 }, '-phone'],
  ]) {
    const page = await browser.newPage({
      viewport,
      colorScheme: 'light',
      httpCredentials: { username: 'demo', password: 'demo' },
    });
    for (const [name, hash] of shots) {
      if (suffix && name !== 'overview') continue;
      await page.goto(`${server.httpUrl}/${hash}`);
      await page.waitForSelector('#live.online');
      // Enough ticks for rates and sparklines.
      await page.waitForTimeout(name === 'overview' ? 8_000 : 2_500);
      if (name === 'stream') {
        await page.locator('details.message summary').first().click();
        await page.evaluate(() => window.scrollTo(0, 0));
      }
      await page.screenshot({ path: join(outDir, `${name}${suffix}.png`) });
      console.log(`wrote docs/dashboard/${name}${suffix}.png`);
    }
    await page.close();
  }
} finally {
  clearInterval(traffic);
  await browser.close();
  await Promise.all(clients.map((c) => c.close()));
  await server.close();
  await rm(storeDir, { recursive: true, force: true });
}
