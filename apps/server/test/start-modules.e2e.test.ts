import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { freePort, slipstreamServerBin, startServerProcess } from '@slipstream/test-servers';
import { describe, expect, it } from 'vitest';
import { expectPrinted, useTempDir } from './server-process.js';

// Before this test the binary loaded JetStream (the API's zod schemas, SQLite), ws, the monitoring pages
// and nkeys whatever its configuration, which made most of its 0.6-1.5 s to the first INFO.
// first-info.e2e.test.ts times the start; this says which code a start loads, without a clock:
// module by module in tsc's output (dist/main.js), whose lazy imports the installed command's
// bundle keeps as chunks of their own.

/** Code that only some configurations use, by the module URLs that show it was loaded. */
const optionalParts: Record<string, RegExp> = {
  jetstream: /\/jsapi\/dist\/|\/zod\/|better-sqlite3|\/jetstream-code\.js$/,
  monitoring: /\/monitoring\/http\.js$/,
  websocket: /\/ws\/|\/websocket-listener\.js$/,
  nkeys: /@nats-io\/nkeys|@nats-io\+nkeys/,
};

const recorder = pathToFileURL(join(import.meta.dirname, 'fixtures', 'record-modules.mjs'));
const unbundled = join(import.meta.dirname, '..', 'dist', 'main.js');
const bundle = pathToFileURL(join(import.meta.dirname, '..', 'bundle')).href;

describe('slipstream-server start', () => {
  const tempDir = useTempDir('slipstream-start-modules-');

  const configurations = [
    { name: 'no options', flags: async () => [], parts: [] },
    { name: '--user --pass', flags: async () => ['--user', 'u', '--pass', 'p'], parts: [] },
    { name: '-js', flags: async () => ['-js', '-sd', join(tempDir(), 'js')], parts: ['jetstream'] },
    { name: '-m', flags: async () => ['-m', String(await freePort())], parts: ['monitoring'] },
  ];

  it.each(configurations)(
    'with $name loads only the optional code it uses: $parts',
    async ({ name, flags, parts }) => {
      const loaded = await modulesLoadedWhenReady(
        unbundled,
        join(tempDir(), `${name}.log`),
        await flags(),
      );
      expect(loaded).toContain(pathToFileURL(unbundled).href);
      const partsLoaded = Object.keys(optionalParts).filter((part) =>
        loaded.some((url) => optionalParts[part]!.test(url)),
      );
      expect(partsLoaded).toEqual(parts);
    },
  );

  it('runs the bundle when installed: no module of the workspace loaded one by one', async () => {
    const flags = ['-js', '-sd', join(tempDir(), 'bundled-js'), '-m', String(await freePort())];
    const loaded = await modulesLoadedWhenReady(
      slipstreamServerBin,
      join(tempDir(), 'bin.log'),
      flags,
    );
    const ours = loaded.filter((url) => url.startsWith('file:') && !url.includes('/node_modules/'));
    const elsewhere = ours.filter(
      (url) => url !== pathToFileURL(slipstreamServerBin).href && !url.startsWith(`${bundle}/`),
    );
    expect(elsewhere).toEqual([]);
    // Its main chunk, JetStream's and monitoring's, and the chunks esbuild splits out of what
    // they share with the other lazy parts (routes, leaf nodes, WebSocket, the config reader):
    // a score or so, not the hundreds of modules tsc writes.
    expect(ours.length).toBeLessThan(30);
  });
});

/** The URLs of the ES modules the server had loaded when it printed that it is ready. */
async function modulesLoadedWhenReady(
  main: string,
  log: string,
  flags: readonly string[],
): Promise<string[]> {
  const recording = new URL(recorder);
  recording.searchParams.set('log', log);
  const server = await startServerProcess(process.execPath, (port) => [
    '--import',
    recording.href,
    main,
    '-a',
    '127.0.0.1',
    '-p',
    String(port),
    ...flags,
  ]);
  try {
    await expectPrinted(server, 'Server is ready');
    return (await readFile(log, 'utf8')).split('\n').filter(Boolean);
  } finally {
    await server.stop();
  }
}
