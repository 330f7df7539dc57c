import { readdirSync, readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { BUNDLE_DIR } from '../../src/monitoring/dashboard/bundle.js';

/** The dashboard's budget: everything the page loads, gzipped (the README states it). */
const BUDGET_BYTES = 150 * 1024;

// The bundle is built from the sources before the tests (build-bundle.ts, vitest globalSetup).
const files = readdirSync(BUNDLE_DIR).map((name) => ({
  name,
  text: readFileSync(new URL(name, BUNDLE_DIR), 'utf8'),
}));

describe('the dashboard bundle', () => {
  it('is index.html, app.js and app.css', () => {
    expect(files.map((f) => f.name).sort()).toEqual(['app.css', 'app.js', 'index.html']);
  });

  it(`stays within ${BUDGET_BYTES / 1024} KiB gzipped`, () => {
    const gzipped = files.reduce((sum, f) => sum + gzipSync(f.text, { level: 9 }).length, 0);
    expect(gzipped).toBeLessThanOrEqual(BUDGET_BYTES);
  });

  it('loads nothing from the network (no CDN, no remote font or script)', () => {
    for (const { name, text } of files) {
      // The SVG namespace is a name, not something fetched.
      const urls = text
        .match(/https?:\/\/[^\s"'`)]+/g)
        ?.filter((u) => u !== 'http://www.w3.org/2000/svg');
      expect(urls ?? [], name).toEqual([]);
    }
  });
});
