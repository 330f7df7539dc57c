import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { runCommand } from './command.js';
import { debianSuite } from './debian-suite.js';
import { listTests } from './test-list.js';

/** A built nats.c test program where it runs (its test folder: certs, configs, test lists). */
export interface BuiltSuite {
  binary: string;
  testDir: string;
  /** Where it came from, for reports: the Debian source version or the override. */
  origin: string;
}

/** A built suite, the tests its binary has and how the binary is told to run one. */
export interface NatsCSuite extends BuiltSuite {
  tests: readonly string[];
  argumentsFor(name: string): string[];
}

/** A suite, or why there is none on this machine. */
export type SuiteLookup<Suite = NatsCSuite> = { suite: Suite } | { unavailable: string };

/**
 * A testsuite binary built elsewhere (NATSC_TESTSUITE), run in NATSC_TEST_DIR or else in the
 * `test` folder beside the build folder that holds it (build/bin/testsuite or build/test/testsuite).
 */
export const testsuiteVariable = 'NATSC_TESTSUITE';
export const testDirVariable = 'NATSC_TEST_DIR';
/** Where the Debian source is downloaded and built, kept between runs (a temp dir by default). */
export const cacheDirVariable = 'NATSC_CACHE_DIR';

/**
 * Finds the nats.c test suite: the override's binary if set, else the one built from Debian's
 * source package in the cache dir, building it first (about a minute) unless `build` is false.
 */
export async function findSuite(options: {
  build: boolean;
  log: (line: string) => void;
}): Promise<SuiteLookup> {
  const override = process.env[testsuiteVariable];
  const cacheDir = process.env[cacheDirVariable] || join(tmpdir(), 'slipstream-natsc');
  const built = override ? overrideSuite(resolve(override)) : await debianSuite(cacheDir, options);
  return 'unavailable' in built ? built : { suite: await withTests(built.suite) };
}

function overrideSuite(binary: string): SuiteLookup<BuiltSuite> {
  if (!existsSync(binary)) return { unavailable: `${testsuiteVariable}=${binary} does not exist` };
  const testDir = process.env[testDirVariable] || join(dirname(dirname(dirname(binary))), 'test');
  if (!existsSync(join(testDir, 'test.c'))) {
    return {
      unavailable: `no test.c in ${testDir}: set ${testDirVariable} to nats.c's test folder`,
    };
  }
  return { suite: { binary, testDir, origin: binary } };
}

/**
 * The binary's way of choosing a test, asked by giving it a wrong number of arguments: 3.4.1 takes
 * a first and last index into list.txt and says its range (`[start] [end] (0 .. 254)`: the
 * NATS Streaming tests at the end of the list are not built); later versions take a name.
 */
async function withTests(built: BuiltSuite): Promise<NatsCSuite> {
  const listed = listTests(built.testDir);
  const usage = await runCommand(built.binary, ['-', '-', '-'], { cwd: built.testDir });
  const range = /\[start\] \[end\] \(0 \.\. (\d+)\)/.exec(usage.output);
  if (!range?.[1]) return { ...built, tests: listed, argumentsFor: (name) => [name] };
  const tests = listed.slice(0, Number(range[1]) + 1);
  return {
    ...built,
    tests,
    argumentsFor: (name) => {
      const index = String(tests.indexOf(name));
      return [index, index];
    },
  };
}
