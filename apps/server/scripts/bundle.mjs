// Bundles tsc's output (dist/) into bundle/, what the installed command runs. Node spends most
// of its start resolving, reading and compiling modules one file at a time: as one file per
// lazily loaded part (JetStream, monitoring, WebSocket, the config file reader), the server
// reaches its first INFO in about half the time.
import { rm } from 'node:fs/promises';
import { build } from 'esbuild';

const outdir = new URL('../bundle/', import.meta.url).pathname;
await rm(outdir, { recursive: true, force: true });
await build({
  // young-generation.js is its own entry so that the bin can run it before main.js loads anything.
  entryPoints: ['main.js', 'young-generation.js'].map(
    (file) => new URL(`../dist/${file}`, import.meta.url).pathname,
  ),
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // A native addon, and modules the server loads by path in a worker or through createRequire:
  // they stay packages of their own, dependencies of this app.
  external: ['better-sqlite3', 'bcryptjs', '@nats-io/nkeys', 'bufferutil', 'utf-8-validate'],
  // Bundled CommonJS (ws) calls require(); an ES module has none of its own.
  banner: {
    js: "import { createRequire as createRequireForBundle } from 'node:module';\nconst require = createRequireForBundle(import.meta.url);",
  },
  logLevel: 'warning',
});
