// Bundles the dashboard (packages/server/dashboard) into dist/dashboard/: index.html, app.js
// (one minified ES module) and app.css, which the monitoring port serves at `/`. Run by the
// package's build; tests import `buildDashboard` to bundle the current sources.
import { copyFile, mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const packageDir = fileURLToPath(new URL('..', import.meta.url));
export const DASHBOARD_SOURCE = `${packageDir}dashboard/`;
export const DASHBOARD_OUT = `${packageDir}dist/dashboard/`;

export async function buildDashboard() {
  await mkdir(DASHBOARD_OUT, { recursive: true });
  await build({
    entryPoints: [`${DASHBOARD_SOURCE}src/main.ts`],
    outfile: `${DASHBOARD_OUT}app.js`,
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    legalComments: 'none',
    logLevel: 'warning',
  });
  await copyFile(`${DASHBOARD_SOURCE}index.html`, `${DASHBOARD_OUT}index.html`);
  await copyFile(`${DASHBOARD_SOURCE}app.css`, `${DASHBOARD_OUT}app.css`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await buildDashboard();
