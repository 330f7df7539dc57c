// The dashboard in real Chromium (playwright-core) against our server: every page loads without
// console errors at a desktop and a phone size, shows the stream the test made and its messages,
// follows a publish within 2 s, and shows HTML from names, subjects and payloads as text.
import { AckPolicy } from '@nats-io/jetstream';
import { Objm } from '@nats-io/obj';
import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectProblems, launchChromium } from './chromium.js';
import {
  type DashboardServer,
  jetstreamManager,
  MONITORING_CREDENTIALS,
  startDashboardServer,
} from './dashboard-server.js';

// Stream names may hold neither '>' nor '/' nor spaces: what HTML they can carry is an entity.
const HOSTILE_STREAM = `<i&amp;"x'`;
const HOSTILE_SUBJECT = 'evil.<img/src=x/onerror=alert(1)>';
const HOSTILE_PAYLOAD = '<script>window.__xss=1</script><img src=x onerror="window.__xss=2">';

const PAGES = [
  '#/',
  '#/connections',
  '#/subjects',
  '#/streams',
  '#/stream/$G/ORDERS',
  '#/kv',
  '#/kv/$G/cfg',
  '#/objects',
  '#/objects/$G/files',
  '#/accounts',
];

let browser: Browser;

beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
});

/** A browser context that answers the monitoring port's basic auth, as a signed-in user. */
function signedIn(options: BrowserContextOptions = {}): Promise<BrowserContext> {
  const { user: username, pass: password } = MONITORING_CREDENTIALS;
  return browser.newContext({ ...options, httpCredentials: { username, password } });
}

async function openPage(
  context: BrowserContext,
  url: string,
): Promise<{ page: Page; problems: string[] }> {
  const page = await context.newPage();
  const problems = collectProblems(page);
  await page.goto(url);
  return { page, problems };
}

describe('the dashboard in Chromium, read-only', () => {
  let s: DashboardServer;

  beforeAll(async () => {
    s = await startDashboardServer();
    const jsm = await jetstreamManager(s.nc);
    await jsm.streams.add({ name: 'ORDERS', subjects: ['orders.>'] });
    await jsm.streams.add({ name: HOSTILE_STREAM, subjects: ['evil.>'] });
    for (let i = 1; i <= 5; i++) await s.publish(`orders.${i}`, `{"order":${i}}`);
    await s.publish(HOSTILE_SUBJECT, HOSTILE_PAYLOAD, { 'X-Html': '<b>bold</b>' });
    await jsm.consumers.add('ORDERS', { durable_name: 'AUDIT', ack_policy: AckPolicy.Explicit });
    await jsm.streams.add({
      name: 'KV_cfg',
      subjects: ['$KV.cfg.>'],
      max_msgs_per_subject: 5,
      allow_rollup_hdrs: true,
    });
    await s.publish('$KV.cfg.color', 'blue');
    const store = await new Objm(s.nc).create('files');
    await store.putBlob({ name: 'hello.txt' }, new TextEncoder().encode('hello'));
    s.nc.subscribe('orders.>');
    s.nc.publish('orders.core', 'x');
    await s.nc.flush();
  });
  afterAll(async () => {
    await s?.stop();
  });

  for (const viewport of [
    { width: 1280, height: 800 },
    { width: 390, height: 844 },
  ]) {
    it(`loads every page at ${viewport.width}x${viewport.height} without errors or sideways scrolling`, async () => {
      const context = await signedIn({ viewport });
      try {
        for (const hash of PAGES) {
          const { page, problems } = await openPage(context, `${s.url}/${hash}`);
          await page.waitForSelector('.page section.panel');
          // Each page has drawn its data once the live feed's first tick came.
          await page.waitForSelector('#live.online');
          await page.waitForTimeout(300);
          // Page-side expressions as text: this project's types have no DOM.
          const overflow = await page.evaluate<number>(
            'document.documentElement.scrollWidth - window.innerWidth',
          );
          expect(overflow, `${hash} scrolls sideways`).toBeLessThanOrEqual(0);
          expect(await page.locator('.error').count(), `${hash} shows an error`).toBe(0);
          expect(problems, hash).toEqual([]);
          await page.close();
        }
      } finally {
        await context.close();
      }
    });
  }

  it('shows the overview with live figures and sparklines', async () => {
    const { page, problems } = await openPage(await signedIn(), `${s.url}/`);
    const overview = page.getByTestId('overview');
    await expect.poll(() => overview.textContent()).toContain('Connections');
    // A sparkline gets its first point from the second tick, a second later.
    await page.waitForFunction(() => {
      // Runs in the page (the CSP refuses string evaluation); this project's types have no DOM.
      const page = globalThis as unknown as {
        document: { querySelector(s: string): { getAttribute(n: string): string | null } | null };
      };
      return page.document
        .querySelector('svg.spark polyline')
        ?.getAttribute('points')
        ?.includes(',');
    });
    expect(await overview.textContent()).toContain('Messages in');
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('lists the connection in a sortable, filterable table', async () => {
    const { page, problems } = await openPage(await signedIn(), `${s.url}/#/connections`);
    const rows = page.locator('table[aria-label="connections"] tbody tr');
    await expect.poll(() => rows.count()).toBe(1);
    await page.getByLabel('Filter connections').fill('nobody-has-this-name');
    await expect.poll(() => rows.count()).toBe(0);
    await page.getByLabel('Filter connections').fill('');
    await page.getByRole('button', { name: /^Subs/ }).click();
    await expect.poll(() => rows.count()).toBe(1);
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('lists the streams, HTML in a stream name shown as text', async () => {
    const { page, problems } = await openPage(await signedIn(), `${s.url}/#/streams`);
    const table = page.locator('table[aria-label="streams"]');
    await expect.poll(() => table.textContent()).toContain('ORDERS');
    const hostile = table.getByRole('link', { name: HOSTILE_STREAM, exact: true });
    expect(await hostile.textContent()).toBe(HOSTILE_STREAM);
    expect(await table.locator('i').count()).toBe(0);
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it("shows a stream's messages and consumers and follows a publish within 2 s", async () => {
    const { page, problems } = await openPage(await signedIn(), `${s.url}/#/stream/$G/ORDERS`);
    const messages = page.getByTestId('messages');
    // Five published through JetStream, one plain publish the stream captured.
    await page.waitForSelector('details[data-seq="6"]');
    expect(await messages.locator('details').count()).toBe(6);
    await expect
      .poll(() => page.locator('table[aria-label="consumers"]').textContent())
      .toContain('AUDIT');
    // The payload opens as JSON.
    await page.locator('details[data-seq="3"] summary').click();
    expect(await page.locator('details[data-seq="3"] pre.payload').textContent()).toBe(
      '{\n  "order": 3\n}',
    );
    await page.locator('details[data-seq="3"]').getByRole('button', { name: 'HEX' }).click();
    expect(await page.locator('details[data-seq="3"] pre.payload').textContent()).toMatch(
      /^00000000 {2}7b 22 6f/,
    );
    // Read-only: no action is offered.
    expect(await page.getByRole('button', { name: 'Purge stream' }).count()).toBe(0);
    const seq = await s.publish('orders.new', 'fresh');
    const published = Date.now();
    await page.waitForSelector(`details[data-seq="${seq}"]`, { timeout: 2_000 });
    expect(Date.now() - published).toBeLessThan(2_000);
    expect(await page.locator(`details[data-seq="${seq}"] .subject`).textContent()).toBe(
      'orders.new',
    );
    // By subject.
    await page.getByLabel('Subject filter').fill('orders.2');
    await page.getByRole('button', { name: 'Show' }).click();
    await expect.poll(() => messages.locator('details').count()).toBe(1);
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('shows a subject, header and payload full of HTML as text, running none of it', async () => {
    const { page, problems } = await openPage(
      await signedIn(),
      `${s.url}/#/stream/$G/${encodeURIComponent(HOSTILE_STREAM)}`,
    );
    expect(await page.locator('h1').textContent()).toBe(HOSTILE_STREAM);
    await page.waitForSelector('details[data-seq="1"]');
    await page.locator('details[data-seq="1"] summary').click();
    expect(await page.locator('details[data-seq="1"] .subject').textContent()).toBe(
      HOSTILE_SUBJECT,
    );
    expect(await page.locator('details[data-seq="1"] pre.payload').textContent()).toBe(
      HOSTILE_PAYLOAD,
    );
    expect(await page.locator('table[aria-label="headers"]').textContent()).toContain(
      '<b>bold</b>',
    );
    expect(await page.locator('main img, main script, main b').count()).toBe(0);
    expect(await page.evaluate('window.__xss')).toBeUndefined();
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('shows KV keys and a key history, and objects with a download link', async () => {
    const { page, problems } = await openPage(await signedIn(), `${s.url}/#/kv/$G/cfg`);
    const keys = page.locator('table[aria-label="keys"]');
    await expect.poll(() => keys.textContent()).toContain('blue');
    await keys.getByRole('button', { name: 'color' }).click();
    await expect.poll(() => page.getByTestId('kv-history').textContent()).toContain('blue');
    await s.publish('$KV.cfg.color', 'green');
    await expect.poll(() => keys.textContent(), { timeout: 2_000 }).toContain('green');
    await page.goto(`${s.url}/#/objects/$G/files`);
    const link = page.getByRole('link', { name: 'Download' });
    await link.waitFor();
    expect(await link.getAttribute('href')).toBe(
      '/dashboard/api/object?account=%24G&bucket=files&name=hello.txt',
    );
    expect(problems).toEqual([]);
    await page.context().close();
  });
});

describe('the dashboard in Chromium, with dashboard.actions', () => {
  let s: DashboardServer;

  beforeAll(async () => {
    s = await startDashboardServer({ dashboard: { actions: true } });
    const jsm = await jetstreamManager(s.nc);
    await jsm.streams.add({ name: 'JOBS', subjects: ['jobs.>'] });
    for (let i = 0; i < 3; i++) await s.publish('jobs.x', `job ${i}`);
  });
  afterAll(async () => {
    await s?.stop();
  });

  it('purges a stream after the user confirms, and not when the user declines', async () => {
    const { page, problems } = await openPage(await signedIn(), `${s.url}/#/stream/$G/JOBS`);
    await page.waitForSelector('details[data-seq="3"]');
    const questions: string[] = [];
    let accept = false;
    page.on('dialog', (dialog) => {
      questions.push(dialog.message());
      void (accept ? dialog.accept() : dialog.dismiss());
    });
    await page.getByRole('button', { name: 'Purge stream' }).click();
    await page.waitForTimeout(1_500);
    expect(await page.locator('details.message').count()).toBe(3);
    accept = true;
    await page.getByRole('button', { name: 'Purge stream' }).click();
    await expect.poll(() => page.locator('details.message').count(), { timeout: 3_000 }).toBe(0);
    expect(questions).toEqual([
      'Purge every message of stream "JOBS"?',
      'Purge every message of stream "JOBS"?',
    ]);
    expect(problems).toEqual([]);
    await page.context().close();
  });
});

describe('the dashboard in Chromium, without monitoringAuth', () => {
  let s: DashboardServer;

  beforeAll(async () => {
    s = await startDashboardServer({ monitoringAuth: undefined });
    const jsm = await jetstreamManager(s.nc);
    await jsm.streams.add({ name: 'OPEN', subjects: ['open.>'] });
    await s.publish('open.x', 'secret payload');
  });
  afterAll(async () => {
    await s?.stop();
  });

  it('shows the stream but says why its messages are kept back', async () => {
    const context = await browser.newContext();
    const { page, problems } = await openPage(context, `${s.url}/#/stream/$G/OPEN`);
    await page.getByTestId('contents-note').waitFor();
    await expect.poll(() => page.locator('.facts').textContent()).toContain('open.>');
    expect(await page.locator('main').textContent()).not.toContain('secret payload');
    expect(problems).toEqual([]);
    await context.close();
  });
});
