import { readFileSync } from 'node:fs';
import type { OperatorOptions, ResolverOptions } from '@slipstream/server';
import { z } from 'zod';
import { notSupported } from './config-authorization.js';

// nats-server's operator mode keys: `operator` (JWTs inline or in files), `resolver` (MEMORY,
// or a full resolver's directory) and `resolver_preload`. Other resolvers (URL, cache) are
// refused by name: clients of their accounts could not be checked.

/**
 * One operator JWT or a list, each as nats-server's ReadOperatorJWT takes it: inline (`eyJ…`),
 * or the name of a file holding it.
 */
export const operatorKey = z
  .union([z.string().transform((value) => [value]), z.array(z.string())])
  .transform((values, ctx) => {
    const jwts: string[] = [];
    for (const value of values) {
      if (value.startsWith('eyJ')) {
        jwts.push(value);
        continue;
      }
      try {
        jwts.push(jwtOf(readFileSync(value, 'utf8')));
      } catch (error) {
        ctx.addIssue({
          code: 'custom',
          message: `cannot read operator JWT file: ${String(error)}`,
        });
        return z.NEVER;
      }
    }
    return jwts;
  });

/** The JWT of a file holding it bare or between nsc's `-----BEGIN … JWT-----` markers. */
function jwtOf(text: string): string {
  const armored = /-{3,}BEGIN [^\n]*JWT-{3,}\s*\n\s*(\S+)/.exec(text);
  return armored ? armored[1]! : text.trim();
}

const fullResolver = z.strictObject(
  {
    type: z.string(),
    dir: z.string(),
    allow_delete: z.boolean().optional(),
    interval: z.union([z.string(), z.number()]).optional(),
    timeout: z.union([z.string(), z.number()]).optional(),
    limit: z.number().optional(),
  },
  { error: notSupported('resolver key', 'resolver') },
);

const unsupportedResolver =
  'only resolver: MEMORY and resolver { type: full, dir: … } are supported yet';

/** `resolver: MEMORY`, or a `resolver {}` block of type full; URL and cache resolvers refused. */
export const resolverKey = z.union([z.string(), fullResolver]).transform((value, ctx) => {
  if (
    typeof value === 'string' ? !/^mem(ory)?$/i.test(value) : value.type.toLowerCase() !== 'full'
  ) {
    ctx.addIssue({ code: 'custom', message: unsupportedResolver });
    return z.NEVER;
  }
  if (typeof value === 'string') return { type: 'memory' } satisfies ResolverOptions;
  return {
    type: 'full',
    dir: value.dir,
    allowDelete: value.allow_delete,
  } satisfies ResolverOptions;
});

export const resolverPreloadKey = z.record(z.string(), z.string());

/**
 * The operator settings of these keys; a message instead when one is missing, as nats-server
 * refuses operators without a resolver and a resolver without operators.
 */
export function operatorOptions(
  jwts: string[] | undefined,
  resolver: ResolverOptions | undefined,
  preload: Record<string, string> | undefined,
): OperatorOptions | string | undefined {
  if (!jwts) return resolver || preload ? 'resolver needs an operator' : undefined;
  if (!resolver) return 'operator needs a resolver (MEMORY or full)';
  return { jwts, resolver: preload ? { ...resolver, preload } : resolver };
}
