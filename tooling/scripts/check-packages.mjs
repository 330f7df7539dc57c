// Lints what we would publish: publint for package.json/exports mistakes and
// are-the-types-wrong for declarations every resolver can find (ESM-only by design).
import { execFileSync } from 'node:child_process';
import { publicPackages } from './public-packages.mjs';

let failures = 0;
for (const { dir, manifest } of publicPackages()) {
  for (const [tool, args] of [
    ['publint', ['publint', '--strict', '--pack', 'npm', dir]],
    ['attw', ['attw', '--pack', dir, '--profile', 'esm-only', '--format', 'table-flipped']],
  ]) {
    try {
      execFileSync('npx', args, { stdio: 'pipe', encoding: 'utf8' });
      console.log(`ok    ${tool.padEnd(8)} ${manifest.name}`);
    } catch (error) {
      failures++;
      console.log(
        `FAIL  ${tool.padEnd(8)} ${manifest.name}\n${error.stdout ?? ''}${error.stderr ?? ''}`,
      );
    }
  }
}
if (failures) {
  console.error(`${failures} package check(s) failed`);
  process.exit(1);
}
