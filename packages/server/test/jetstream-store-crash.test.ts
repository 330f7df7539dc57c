/**
 * A process storing messages is killed with SIGKILL at a random moment, several times over
 * the same file: every message it saw reported durable must be there, intact, after each
 * restart. The child runs the built store (dist/), as the server would.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { openSqliteStore } from '../src/jetstream/store/sqlite-store.js';
import { databasePath, limits, STREAM, temporaryDirectory, text } from './jetstream-store-kinds.js';

const builtStore = fileURLToPath(
  new URL('../dist/jetstream/store/sqlite-store.js', import.meta.url),
);
const CYCLES = Number(process.env.STORE_CRASH_CYCLES ?? 3);

/** Stores batches of messages whose payload is their own sequence; prints each durable one. */
const childSource = (path: string) => `
import { openSqliteStore } from ${JSON.stringify(pathToFileURL(builtStore).href)};
import { NO_LIMITS } from ${JSON.stringify(pathToFileURL(join(builtStore, '../message-store.js')).href)};
const store = openSqliteStore({ name: ${JSON.stringify(STREAM)}, path: ${JSON.stringify(path)}, limits: NO_LIMITS });
const encoder = new TextEncoder();
for (;;) {
  const batch = 1 + Math.floor(Math.random() * 50);
  let last = 0;
  for (let i = 0; i < batch; i++) {
    const next = store.state().lastSeq + 1;
    last = store.store('crash.' + (next % 7), undefined, encoder.encode('payload-' + next)).seq;
  }
  await store.whenDurable();
  process.stdout.write('durable ' + last + '\\n');
}
`;

let dir: ReturnType<typeof temporaryDirectory>;
let child: ChildProcess | undefined;

beforeEach(() => {
  dir = temporaryDirectory();
});
afterEach(() => {
  child?.kill('SIGKILL');
  dir.remove();
});

/** Runs the child until killed at a random moment after its first durable batch; resolves with the highest durable seq. */
function runAndKill(script: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [script], { stdio: ['ignore', 'pipe', 'pipe'] });
    child = proc;
    let durable = 0;
    let stderr = '';
    let buffered = '';
    proc.stderr!.on('data', (chunk) => (stderr += chunk));
    proc.stdout!.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const lines = buffered.split('\n');
      buffered = lines.pop()!;
      for (const line of lines) {
        // The kill is armed by the first durable batch, not by the start: on a loaded machine the
        // first sync can take longer than the kill delay, and a cycle must add something to check.
        if (durable === 0) setTimeout(() => proc.kill('SIGKILL'), Math.random() * 250);
        durable = Math.max(durable, Number(line.split(' ')[1]));
      }
    });
    proc.on('exit', (_code, signal) => {
      if (signal === 'SIGKILL') resolve(durable);
      else reject(new Error(`child exited on its own: ${stderr}`));
    });
  });
}

it(`never loses a message reported durable when the process is killed (${CYCLES} cycles)`, async () => {
  expect(existsSync(builtStore), 'build @slipstream/server first (dist/ is missing)').toBe(true);
  const path = databasePath(dir.path);
  const script = join(dir.path, 'child.mjs');
  writeFileSync(script, childSource(path));
  let previousLast = 0;
  for (let cycle = 0; cycle < CYCLES; cycle++) {
    const durable = await runAndKill(script);
    expect(durable).toBeGreaterThan(previousLast);
    const store = openSqliteStore({ name: STREAM, path, limits: limits() });
    try {
      const state = store.state();
      expect(state.lastSeq).toBeGreaterThanOrEqual(durable);
      expect(state.messages).toBe(state.lastSeq);
      for (let seq = 1; seq <= durable; seq++) {
        expect(text(store.load(seq).payload)).toBe(`payload-${seq}`);
      }
      expect(store.findDamaged()).toEqual([]);
      previousLast = state.lastSeq;
    } finally {
      await store.close();
    }
  }
}, 60_000);
