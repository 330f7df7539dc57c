/**
 * The reliability campaign: runs its sections (all by default) within one time budget, divided by
 * their shares, and writes the figures to docs/reliability.md (only when every section ran; a
 * partial run prints its report instead, unless --out names a file). Builds nothing: run
 * `pnpm build` at the repository root first. Needs root for FUSE (the power-loss section).
 *
 *   node tooling/reliability/dist/main.js --budget 30m [--sections power-loss,...] [--out FILE]
 *
 * Exits 1 when a promise of the report (a must-be-0 figure) was broken.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { cpus, tmpdir, totalmem } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { formatDuration, parseDuration } from './duration.js';
import { allHold, type CampaignRun, renderReport } from './report.js';
import { pendingSections, sections } from './sections/index.js';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

const { values } = parseArgs({
  options: {
    budget: { type: 'string' },
    sections: { type: 'string' },
    out: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  },
});
if (values.help) {
  console.log(
    [
      'usage: node tooling/reliability/dist/main.js --budget 30m [--sections a,b] [--out FILE]',
      '',
      '  --budget    the time all chosen sections may take together (e.g. 90s, 15m, 1h),',
      '              divided among them by their shares',
      `  --sections  a comma-separated choice of: ${sections.map((s) => s.name).join(', ')}`,
      '  --out       write the report to FILE (a partial run only prints it by default)',
      '',
      'Seeds replay with DAMAGE_SEED / HOSTILE_SEED (named in each section of the report).',
    ].join('\n'),
  );
  process.exit(0);
}
if (values.budget === undefined) {
  console.error(
    '--budget is required, e.g. --budget 30m (the time all sections may take together)',
  );
  process.exit(2);
}
const budgetMs = parseDuration(values.budget);
const names = values.sections?.split(',').map((name) => name.trim()) ?? sections.map((s) => s.name);
const unknown = names.filter((name) => !sections.some((s) => s.name === name));
if (unknown.length > 0) {
  console.error(
    `unknown section ${unknown.join(', ')}; choose from ${sections.map((s) => s.name).join(', ')}`,
  );
  process.exit(2);
}
const selected = sections.filter((s) => names.includes(s.name));
const totalShare = selected.reduce((sum, s) => sum + s.share, 0);

const started = Date.now();
const results: CampaignRun['sections'][number][] = [];
for (const section of selected) {
  const workDir = await mkdtemp(join(tmpdir(), `reliability-${section.name}-`));
  const sectionBudget = (budgetMs * section.share) / totalShare;
  console.log(`== ${section.title} (${formatDuration(sectionBudget)})`);
  try {
    const result = await section.run({
      budgetMs: sectionBudget,
      workDir,
      log: (line) => console.log(`  [${Math.round((Date.now() - started) / 1_000)} s] ${line}`),
    });
    results.push({ title: section.title, result });
  } catch (error) {
    // One section failing must not take the others' figures with it: it is a broken promise.
    console.error(error);
    const reason = (error as Error).message;
    results.push({
      title: section.title,
      result: {
        figures: [
          {
            check: 'the section ran to its end',
            trials: '—',
            ours: `failed: ${reason.split('\n')[0]}`,
            holds: false,
          },
        ],
        details: `The section failed before its figures were complete:\n\n\`\`\`\n${reason}\n\`\`\``,
      },
    });
  } finally {
    // A directory left busy (a mount a failed section did not undo) is named, not fatal.
    await rm(workDir, { recursive: true, force: true }).catch((error: Error) =>
      console.error(`could not remove ${workDir}: ${error.message}`),
    );
  }
}

const cpu = cpus();
const run: CampaignRun = {
  command: [
    'node',
    relative(repoRoot, fileURLToPath(import.meta.url)),
    ...process.argv.slice(2),
  ].join(' '),
  date: new Date(started),
  machine: `${cpu[0]?.model ?? 'unknown CPU'} × ${cpu.length}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB, Node ${process.version}`,
  budget: formatDuration(budgetMs),
  elapsed: formatDuration(Date.now() - started),
  sections: results,
  pending: selected.length === sections.length ? pendingSections : [],
};
const report = renderReport(run);
const out =
  values.out ??
  (selected.length === sections.length ? join(repoRoot, 'docs', 'reliability.md') : undefined);
if (out === undefined) console.log(`\n${report}`);
else {
  await mkdir(dirname(out), { recursive: true });
  await writeFile(out, report);
  console.log(`\nwrote ${out}`);
}
process.exit(allHold(results) ? 0 : 1);
