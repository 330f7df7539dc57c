import type { Sample, Side } from './rounds.js';

/** A package under test, or why it cannot be measured yet. */
export type Loaded<T> = { readonly module: T } | { readonly skipped: string };

/**
 * Imports one of our packages by name if it is installed, built and has the exports the benchmark
 * uses. Our packages are written alongside these benchmarks, so a missing one is an expected state
 * that skips its side of the comparison with a message, never a failure.
 */
export async function importIfBuilt<T>(
  specifier: string,
  exportsUsed: readonly string[],
): Promise<Loaded<T>> {
  let module: Record<string, unknown>;
  try {
    module = (await import(specifier)) as Record<string, unknown>;
  } catch (error) {
    const code = (error as { code?: string }).code;
    const why = code === 'ERR_MODULE_NOT_FOUND' ? 'not installed or dist/ missing' : String(error);
    return { skipped: `${specifier} not built yet (${why}; run \`pnpm build\` first)` };
  }
  const missing = exportsUsed.filter((name) => module[name] === undefined);
  if (missing.length > 0) {
    return {
      skipped: `${specifier} not built yet (no export ${missing.join(', ')}; run \`pnpm build\` first)`,
    };
  }
  return { module: module as T };
}

/** Our side of a comparison: measured with the loaded package, or skipped with the reason it is missing. */
export function sideOf<T>(
  name: string,
  loaded: Loaded<T>,
  measure: (module: T) => Promise<Sample>,
): Side {
  return 'module' in loaded
    ? { name, measure: () => measure(loaded.module) }
    : { name, skipped: loaded.skipped };
}
