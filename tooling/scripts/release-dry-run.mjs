// Rehearses a release without touching the working tree: applies the pending changesets to a
// scratch copy of the workspace (`changeset version`), turns workspace: ranges into the real
// versions as `pnpm publish` does, packs every public package there, then installs each tarball
// into an empty project on its own, with only its own dependencies, and imports it.
import { execFileSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { publicPackages } from './public-packages.mjs';

const root = process.cwd();
const scratch = mkdtempSync(join(tmpdir(), 'slipstream-release-'));
const run = (cmd, args, cwd) => execFileSync(cmd, args, { cwd, stdio: 'pipe', encoding: 'utf8' });

try {
  for (const file of ['package.json', 'pnpm-workspace.yaml', '.npmrc', '.changeset']) {
    cpSync(join(root, file), join(scratch, file), { recursive: true });
  }
  const packages = publicPackages(root);
  for (const { dir } of packages) {
    const target = join(scratch, relative(root, dir));
    mkdirSync(target, { recursive: true });
    for (const entry of readdirSync(dir)) {
      if (['node_modules', 'src', 'test', '.turbo'].includes(entry)) continue;
      cpSync(join(dir, entry), join(target, entry), { recursive: true });
    }
    if (!existsSync(join(dir, 'dist')))
      throw new Error(`${dir} has no dist/: run pnpm build first`);
  }

  const changeset = resolve(root, 'node_modules/.bin/changeset');
  console.log(run(changeset, ['version'], scratch).trim() || 'changeset version: nothing to apply');

  const tarballs = join(scratch, 'tarballs');
  mkdirSync(tarballs);
  const packed = new Map();
  const versioned = publicPackages(scratch);
  const versions = new Map(versioned.map(({ manifest }) => [manifest.name, manifest.version]));
  for (const { dir, manifest } of versioned) {
    resolveWorkspaceRanges(join(dir, 'package.json'), versions);
    // One folder a package: @slipstream/server and slipstream-server pack to the same file name.
    const destination = join(tarballs, manifest.name.replace('/', '__'));
    mkdirSync(destination);
    const file = run('npm', ['pack', '--silent', '--pack-destination', destination], dir).trim();
    packed.set(manifest.name, { file: join(destination, file), manifest });
    console.log(`packed ${manifest.name}@${manifest.version}`);
  }

  // Each package installs alone: our own dependencies come from the other tarballs (as the
  // registry would serve them), third-party ones from the registry.
  for (const [name, { file, manifest }] of packed) {
    const app = join(scratch, `install-${name.replace('/', '-')}`);
    mkdirSync(app);
    writeFileSync(
      join(app, 'package.json'),
      JSON.stringify({ name: 'probe', private: true, type: 'module' }),
    );
    const ours = closure(name, packed).map((n) => packed.get(n).file);
    run('npm', ['install', '--no-audit', '--no-fund', '--silent', file, ...ours], app);
    const probe = `import(${JSON.stringify(name)}).then(m => console.log(Object.keys(m).length + ' exports'))`;
    const result = manifest.bin ? binProbe(app, manifest) : run('node', ['-e', probe], app).trim();
    console.log(`installs alone: ${name} -> ${result}`);
  }
  console.log('release dry run ok');
} finally {
  rmSync(scratch, { recursive: true, force: true });
}

/** An app is checked by running its first bin with --version. */
function binProbe(app, manifest) {
  const bin = typeof manifest.bin === 'string' ? manifest.name : Object.keys(manifest.bin)[0];
  return run(join(app, 'node_modules/.bin', bin), ['--version'], app)
    .trim()
    .split('\n')[0];
}

/** `workspace:^` becomes `^1.2.3` (and `*`, `~` likewise), as pnpm does when it publishes. */
function resolveWorkspaceRanges(manifestPath, versions) {
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
  for (const field of [
    'dependencies',
    'peerDependencies',
    'optionalDependencies',
    'devDependencies',
  ]) {
    for (const [dep, range] of Object.entries(manifest[field] ?? {})) {
      if (!range.startsWith('workspace:')) continue;
      const version = versions.get(dep);
      if (!version) {
        // A private tooling package: only ever a devDependency, never installed by users.
        delete manifest[field][dep];
        continue;
      }
      const wanted = range.slice('workspace:'.length);
      manifest[field][dep] =
        wanted === '*' ? version : wanted === '^' || wanted === '~' ? wanted + version : wanted;
    }
  }
  writeFileSync(manifestPath, JSON.stringify(manifest, null, 2));
}

/** Our packages that `name` needs at run time, transitively. */
function closure(name, packed, seen = new Set()) {
  for (const dep of Object.keys(packed.get(name).manifest.dependencies ?? {})) {
    if (packed.has(dep) && !seen.has(dep)) {
      seen.add(dep);
      closure(dep, packed, seen);
    }
  }
  return [...seen];
}
