/**
 * The damage a trial does to one file of a stopped server's store: a single flipped bit at a
 * random offset, or a truncation at a random length, drawn from a seeded generator so that a
 * trial replays from its seed.
 */
import { readdirSync, readFileSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/** A seeded generator (mulberry32): `next(n)` is an integer in [0, n). */
export function seeded(seed: number): (n: number) => number {
  let state = seed >>> 0;
  return (n: number) => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * n);
  };
}

export type DamageKind = 'bit flip' | 'truncation';

/** Every non-empty file under `dir`, relative to it, in a stable order. */
export function storeFiles(dir: string): string[] {
  const found: string[] = [];
  const walk = (at: string) => {
    for (const entry of readdirSync(at, { withFileTypes: true }).sort((a, b) =>
      a.name < b.name ? -1 : 1,
    )) {
      const path = join(at, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile() && statSync(path).size > 0) found.push(relative(dir, path));
    }
  };
  walk(dir);
  return found;
}

/** Damages `file` as `kind` says; how, in words. */
export function damageFile(file: string, kind: DamageKind, random: (n: number) => number): string {
  const size = statSync(file).size;
  if (kind === 'truncation') {
    const length = random(size);
    truncateSync(file, length);
    return `truncated from ${size} to ${length} bytes`;
  }
  const bytes = readFileSync(file);
  const offset = random(size);
  const bit = random(8);
  bytes[offset]! ^= 1 << bit;
  writeFileSync(file, bytes);
  return `bit ${bit} of byte ${offset} of ${size} flipped`;
}
