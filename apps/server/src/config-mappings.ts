import type { MappingDestination, MappingOptions } from '@slipstream/server';
import * as z from 'zod';
import { notSupported } from './config-authorization.js';

// nats-server's `mappings` (or `maps`) block, at the top level for the global account and in an
// account: `source: destination`, or weighted destinations `[{ destination, weight: 50% }]`.
// A destination scoped to a cluster is refused: it would never apply on this single server.

/** `50%`, `"50"` or 50; 0 to 100. */
const weight = z.union([z.number(), z.string()]).transform((given, ctx) => {
  const text = String(given).trim().replace(/%$/, '');
  const percent = /^[+-]?\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isInteger(percent) || percent < 0 || percent > 100) {
    ctx.addIssue({
      code: 'custom',
      continue: true,
      message: `invalid weight "${given}" for mapping destination`,
    });
    return z.NEVER;
  }
  return percent;
});

const destination = z
  .strictObject(
    { destination: z.string().optional(), dest: z.string().optional(), weight: weight.optional() },
    { error: notSupported('mapping destination key', 'mappings') },
  )
  .transform((d, ctx): MappingDestination => {
    const subject = d.destination ?? d.dest;
    if (subject === undefined) {
      ctx.addIssue({
        code: 'custom',
        continue: true,
        message: 'a mapping destination needs a destination',
      });
      return z.NEVER;
    }
    if (d.weight === undefined) {
      ctx.addIssue({
        code: 'custom',
        continue: true,
        message: `missing weight for mapping destination "${subject}"`,
      });
      return z.NEVER;
    }
    return { destination: subject, weight: d.weight };
  });

const destinations = z.array(destination);

/** A destination subject, a list of weighted ones, or one weighted one alone. */
const mapping = z.unknown().transform((value, ctx): MappingOptions => {
  if (typeof value === 'string') return value;
  const parsed = destinations.safeParse(Array.isArray(value) ? value : [value]);
  if (parsed.success) return parsed.data;
  // Reported as the destination's own problems (a union would only say "Invalid input").
  for (const issue of parsed.error.issues) {
    const path = Array.isArray(value) ? issue.path : issue.path.slice(1);
    ctx.addIssue({
      code: 'custom',
      continue: true,
      message: issue.message,
      path: path as PropertyKey[],
    });
  }
  return z.NEVER;
});

export const mappingsBlock = z.record(z.string(), mapping);
