import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { runCommand, tail } from './command.js';
import type { BuiltSuite, SuiteLookup } from './suite.js';

/** Debian's name for nats.c's source package (its binaries are libnats-dev and libnats3.4). */
const sourcePackage = 'nats.c';

/** What building the suite needs beside apt-get: Debian package names, for the message. */
const buildNeeds = 'cmake make gcc libssl-dev';

/**
 * nats.c's test suite from Debian's source package: its upstream tarball (nats.c_3.4.1.orig.tar.gz
 * in bookworm) is the tag's `git archive`, tests included. Downloaded with `apt-get source`, which
 * needs a deb-src entry for the suite, unpacked without Debian's packaging patches (they touch the
 * packaging, not the tests), and the test program alone built with cmake; all of it kept in
 * `cacheDir` so that the next run starts at once.
 */
export async function debianSuite(
  cacheDir: string,
  options: { build: boolean; log: (line: string) => void },
): Promise<SuiteLookup<BuiltSuite>> {
  const sourceDir = join(cacheDir, 'source');
  const buildDir = join(cacheDir, 'build');
  const built = findTestsuite(buildDir);
  if (built)
    return { suite: { binary: built, testDir: join(sourceDir, 'test'), origin: origin(cacheDir) } };
  if (!options.build) {
    return {
      unavailable: `the suite is not built in ${cacheDir} yet (the runner's --build builds it)`,
    };
  }
  const missing = await missingBuildTools();
  if (missing) return { unavailable: `${missing}; install: apt-get install ${buildNeeds}` };

  const downloadDir = join(cacheDir, 'download');
  mkdirSync(downloadDir, { recursive: true });
  let tarball = verifiedTarball(downloadDir);
  if (!tarball) {
    options.log(`downloading Debian's ${sourcePackage} source package into ${downloadDir}`);
    const download = await runCommand('apt-get', ['source', '--download-only', sourcePackage], {
      cwd: downloadDir,
    });
    tarball = verifiedTarball(downloadDir);
    if (download.code !== 0 || !tarball) {
      return {
        unavailable:
          `apt-get source ${sourcePackage} failed (it needs a deb-src entry for Debian's main ` +
          `component, then apt-get update): ${errorsOf(download.output)}`,
      };
    }
  }

  rmSync(sourceDir, { recursive: true, force: true });
  mkdirSync(sourceDir, { recursive: true });
  const unpack = await runCommand('tar', [
    'xzf',
    join(downloadDir, tarball),
    '-C',
    sourceDir,
    '--strip-components=1',
  ]);
  if (unpack.code !== 0)
    return { unavailable: `unpacking ${tarball} failed: ${tail(unpack.output)}` };

  options.log(`building nats.c's testsuite in ${buildDir}`);
  const started = performance.now();
  const configure = await runCommand('cmake', [
    '-S',
    sourceDir,
    '-B',
    buildDir,
    '-DCMAKE_BUILD_TYPE=RelWithDebInfo',
    // Only what the client tests need: no NATS Streaming (protobuf-c), examples or shared library.
    '-DNATS_BUILD_STREAMING=OFF',
    '-DNATS_BUILD_EXAMPLES=OFF',
    '-DNATS_BUILD_LIB_SHARED=OFF',
    // 3.4.1 calls OpenSSL's 1.0 API unless told that 1.1 or later (bookworm has 3.0) is there.
    '-DNATS_BUILD_TLS_USE_OPENSSL_1_1_API=ON',
  ]);
  if (configure.code !== 0) return { unavailable: `cmake failed: ${tail(configure.output)}` };
  const make = await runCommand('cmake', [
    '--build',
    buildDir,
    '--target',
    'testsuite',
    '--parallel',
    String(availableParallelism()),
  ]);
  const binary = findTestsuite(buildDir);
  if (make.code !== 0 || !binary)
    return { unavailable: `building testsuite failed: ${tail(make.output)}` };
  options.log(`built ${binary} in ${((performance.now() - started) / 1000).toFixed(0)} s`);
  return { suite: { binary, testDir: join(sourceDir, 'test'), origin: origin(cacheDir) } };
}

/**
 * The upstream tarball in the download dir, if the .dsc beside it names it with its SHA-256 (a
 * download cut short, or a file that is not Debian's, is not used).
 */
function verifiedTarball(downloadDir: string): string | undefined {
  const names = readdirSync(downloadDir);
  const dsc = names.find((name) => name.endsWith('.dsc'));
  const tarball = names.find((name) => name.endsWith('.orig.tar.gz'));
  if (!dsc || !tarball) return undefined;
  const listed = readFileSync(join(downloadDir, dsc), 'utf8');
  const sha256 = createHash('sha256')
    .update(readFileSync(join(downloadDir, tarball)))
    .digest('hex');
  return listed.includes(`${sha256} `) && listed.includes(tarball) ? tarball : undefined;
}

/** The built test program: build/test/testsuite for 3.4.1, build/bin/testsuite for later versions. */
function findTestsuite(buildDir: string): string | undefined {
  return ['test', 'bin']
    .map((dir) => join(buildDir, dir, 'testsuite'))
    .find((path) => existsSync(path));
}

/** The Debian version the suite was built from, read from the downloaded .dsc's name. */
function origin(cacheDir: string): string {
  const dsc = readdirSync(join(cacheDir, 'download')).find((name) => name.endsWith('.dsc'));
  return dsc ? `Debian source ${dsc.replace(/\.dsc$/, '')}` : `Debian source in ${cacheDir}`;
}

async function missingBuildTools(): Promise<string | undefined> {
  for (const tool of ['apt-get', 'cmake', 'make', 'cc']) {
    const found = await runCommand('sh', ['-c', `command -v ${tool}`]);
    if (found.code !== 0) return `no ${tool} on PATH`;
  }
  if (!existsSync('/usr/include/openssl/ssl.h'))
    return 'no OpenSSL headers (/usr/include/openssl/ssl.h)';
  return undefined;
}

/** apt-get's error lines (`E: …`), without its warnings; the output's end if it has none. */
function errorsOf(output: string): string {
  const errors = output.split('\n').filter((line) => line.startsWith('E: '));
  return errors.length > 0 ? errors.join('\n') : tail(output, 4);
}
