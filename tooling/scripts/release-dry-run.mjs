// Rehearses a release without touching the working tree: applies the pending changesets to a
// scratch copy of the workspace (`changeset version`), packs every public package there
// (`pnpm pack` turns workspace: ranges into real versions), then installs each tarball into an
// empty project on its own, with only its own dependencies, and imports it.
import { execFileSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
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
  for (const { dir, manifest } of publicPackages(scratch)) {
    run('npx', ['-y', 'pnpm@10', 'pack', '--pack-destination', tarballs], dir);
    const file = readdirSync(tarballs).find((f) =>
      f.startsWith(`${manifest.name.replace('@', '').replace('/', '-')}-${manifest.version}`),
    );
    packed.set(manifest.name, { file: join(tarballs, file), manifest });
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
    const probe = manifest.bin
      ? `ok`
      : `import(${JSON.stringify(name)}).then(m => console.log(Object.keys(m).length + ' exports'))`;
    const result = manifest.bin ? 'installed (app)' : run('node', ['-e', probe], app).trim();
    console.log(`installs alone: ${name} -> ${result}`);
  }
  console.log('release dry run ok');
} finally {
  rmSync(scratch, { recursive: true, force: true });
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
