import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { requireSystemComponent } from '@slipstream/test-servers';
import { type Browser, chromium, type Page } from 'playwright-core';
import { build, type PreviewServer, preview } from 'vite';
import { refuseNodeBuiltins } from './refuse-node-builtins.js';

export interface BundledPage {
  readonly page: Page;
  close(): Promise<void>;
}

/**
 * Builds the page in `root` with Vite for the browser, serves it, and opens it in Chromium
 * once it sets its title to 'ready'. Skips the calling file (fails it under CI) when Chromium
 * is not installed.
 */
export async function openBundledPage(root: string): Promise<BundledPage> {
  const chromiumPath = requireSystemComponent('chromium');
  const outDir = await mkdtemp(join(tmpdir(), 'slipstream-page-'));
  let site: PreviewServer | undefined;
  let browser: Browser | undefined;
  const close = async () => {
    await browser?.close();
    await site?.close();
    await rm(outDir, { recursive: true, force: true });
  };
  try {
    // Fails on any Node built-in in the bundle: the browser entry must not need one.
    await build({
      root,
      logLevel: 'warn',
      plugins: [refuseNodeBuiltins()],
      build: { outDir, emptyOutDir: true, minify: false },
    });
    // Served over http://, not file://, so that the page may open WebSockets.
    site = await preview({
      root,
      logLevel: 'warn',
      build: { outDir },
      preview: { host: '127.0.0.1', port: 0, open: false },
    });
    browser = await chromium.launch({
      executablePath: chromiumPath,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
    const page = await browser.newPage();
    await page.goto(site.resolvedUrls!.local[0]!);
    await page.waitForFunction(() => document.title === 'ready');
    return { page, close };
  } catch (error) {
    await close();
    throw error;
  }
}
