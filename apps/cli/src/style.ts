import { createRequire } from 'node:module';
import { createColors } from 'picocolors';

/**
 * Colours only for a person at a terminal: never when NO_COLOR is set (https://no-color.org) or
 * when stdout is a pipe or file, unless FORCE_COLOR asks for them. picocolors' own check turns
 * colours on whenever CI is set, which would put escape codes into a CI job's piped output.
 */
function colorWanted(): boolean {
  if (process.env.NO_COLOR) return false;
  if (process.env.FORCE_COLOR && process.env.FORCE_COLOR !== '0') return true;
  return process.stdout.isTTY === true && process.env.TERM !== 'dumb';
}

export const color = createColors(colorWanted());

/** A bordered table with a header row (and an optional title above it), as text. */
export function table(
  head: readonly string[],
  rows: ReadonlyArray<ReadonlyArray<string | number>>,
  title?: string,
): string {
  // Loaded on first use, as most commands print no table. cli-table3 would colour through its
  // own library, which ignores NO_COLOR; ours does it.
  const Table = createRequire(import.meta.url)('cli-table3') as typeof import('cli-table3');
  const rendered = new Table({
    head: head.map((h) => color.bold(h)),
    style: { head: [], border: [] },
  });
  for (const row of rows) rendered.push(row.map(String));
  return title ? `${color.bold(title)}\n${rendered.toString()}` : rendered.toString();
}

/** Label/value lines aligned on the colon, as `nats stream info` prints a section. */
export function section(title: string, entries: ReadonlyArray<readonly [string, unknown]>): string {
  const shown = entries.filter(([, value]) => value !== undefined && value !== '');
  const width = Math.max(0, ...shown.map(([label]) => label.length));
  const lines = shown.map(([label, value]) => `${label.padStart(width + 2)}: ${value}`);
  return `${color.bold(title)}:\n\n${lines.join('\n')}\n`;
}
