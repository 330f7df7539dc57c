// @slipstream/client bundled by Vite for the browser (the `browser` export condition picks the
// native WebSocket transport) and driven in real Chromium against the WebSocket listeners of
// nats-server 2.9.10 and slipstream-server.
import { join } from 'node:path';
import {
  type RunningNatsServer,
  startNatsServer,
  startSlipstreamServer,
} from '@slipstream/test-servers';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BundledPage, openBundledPage } from './bundled-page.js';

let server: RunningNatsServer;
let bundled: BundledPage;
let page: Page;

beforeAll(async () => {
  // Skips this file (fails it under CI) when Chromium or nats-server is not installed.
  bundled = await openBundledPage(join(import.meta.dirname, '../page'));
  page = bundled.page;
});

afterAll(async () => {
  await bundled?.close();
});

const servers = [
  { name: 'nats-server 2.9.10', start: () => startNatsServer({ websocket: true }) },
  { name: 'slipstream-server', start: () => startSlipstreamServer({ websocket: true }) },
];

describe.each(servers)('@slipstream/client in Chromium over ws:// to $name', ({ start }) => {
  beforeAll(async () => {
    server = await start();
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('connects, publishes and subscribes', async () => {
    const received = await page.evaluate(async (url) => {
      const nc = await window.slipstream.connect({ servers: url });
      const sub = nc.subscribe('browser.>', { max: 3 });
      const got: string[] = [];
      const done = (async () => {
        for await (const m of sub) got.push(`${m.subject}:${m.string()}`);
      })();
      for (let i = 0; i < 3; i++) nc.publish(`browser.${i}`, `hello ${i}`);
      await done;
      await nc.close();
      return got;
    }, wsUrl());
    expect(received).toEqual(['browser.0:hello 0', 'browser.1:hello 1', 'browser.2:hello 2']);
  });

  it('makes requests and answers them', async () => {
    const reply = await page.evaluate(async (url) => {
      const nc = await window.slipstream.connect({ servers: url });
      nc.subscribe('browser.echo', {
        callback: (_err, m) => {
          m.respond(`echo: ${m.string()}`);
        },
      });
      const answer = await nc.request('browser.echo', 'ping', { timeout: 5000 });
      let noResponders = '';
      try {
        await nc.request('browser.nobody', 'x', { timeout: 5000 });
      } catch (error) {
        noResponders = (error as { code?: string }).code ?? String(error);
      }
      await nc.close();
      return { answer: answer.string(), noResponders };
    }, wsUrl());
    expect(reply.answer).toBe('echo: ping');
    expect(reply.noResponders).toMatch(/503|NO_RESPONDERS|no.?responders/i);
  });

  it('reconnects after the server restarts and resumes its subscription', async () => {
    await page.evaluate(async (url) => {
      const nc = await window.slipstream.connect({ servers: url, reconnectTimeWait: 100 });
      const events: string[] = [];
      const got: string[] = [];
      (async () => {
        for await (const s of nc.status()) events.push(s.type);
      })();
      nc.subscribe('browser.after', {
        callback: (_e, m) => {
          got.push(m.string());
        },
      });
      await nc.flush();
      Object.assign(window, { reconnectProbe: { nc, events, got } });
    }, wsUrl());

    server = await server.restart();

    const result = await page.evaluate(async () => {
      const { nc, events, got } = (window as unknown as { reconnectProbe: Record<string, never> })
        .reconnectProbe as unknown as {
        nc: Awaited<ReturnType<Window['slipstream']['connect']>>;
        events: string[];
        got: string[];
      };
      const deadline = Date.now() + 20_000;
      while (!events.includes('reconnect') && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 50));
      }
      nc.publish('browser.after', 'back');
      await nc.flush();
      while (got.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      await nc.close();
      return { events, got };
    });
    expect(result.events).toContain('disconnect');
    expect(result.events).toContain('reconnect');
    expect(result.events.indexOf('disconnect')).toBeLessThan(result.events.indexOf('reconnect'));
    expect(result.got).toEqual(['back']);
  });
});

function wsUrl(): string {
  return `ws://127.0.0.1:${server.wsPort}`;
}
