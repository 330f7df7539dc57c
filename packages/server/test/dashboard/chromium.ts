import { requireSystemComponent } from '@slipstream/test-servers';
import { type Browser, chromium, type Page } from 'playwright-core';

/** Chromium through requireSystemComponent (the file is skipped, or fails under CI, without it). */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: requireSystemComponent('chromium'),
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** Console errors, page errors and failed requests of `page`, collected as text. */
export function collectProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('requestfailed', (request) => {
    // The live feed is cut when the page navigates away or closes: not a problem of the page.
    if (!request.url().endsWith('/dashboard/events')) {
      problems.push(`request failed: ${request.url()} ${request.failure()?.errorText}`);
    }
  });
  return problems;
}
