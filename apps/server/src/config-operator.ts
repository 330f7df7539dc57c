import { readFileSync } from 'node:fs';
import type { OperatorOptions, ResolverOptions } from '@slipstream/server';
import * as z from 'zod';
import { parseDuration } from './conf/units.js';
import { notSupported } from './config-authorization.js';

// nats-server's operator mode keys: `operator` (JWTs inline or in files), `resolver` (MEMORY,
// URL(...), or a full or cache resolver's directory) and `resolver_preload`.

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

const directoryResolver = z.strictObject(
  {
    type: z.string(),
    dir: z.string(),
    allow_delete: z.boolean().optional(),
    interval: z.union([z.string(), z.number()]).optional(),
    timeout: z.union([z.string(), z.number()]).optional(),
    limit: z.number().optional(),
    ttl: z.string().optional(),
  },
  { error: notSupported('resolver key', 'resolver') },
);

const unsupportedResolver =
  'error parsing account resolver, should be MEM or  URL("url") or a map containing dir and type state=[FULL|CACHE])';

/** nats-server's `URL(...)` form, the URL optionally quoted. */
const URL_RESOLVER = /^URL\(\s*"?([^\s"]*)"?\s*\)\s*$/i;

/**
 * `resolver: MEMORY` or `URL(<url>)`, or a `resolver {}` block of type full or cache, as
 * nats-server's parser takes them (a cache takes no interval or allow_delete, a full one no ttl).
 */
export const resolverKey = z
  .union([z.string(), directoryResolver])
  .transform((value, ctx): ResolverOptions => {
    const refuse = (message: string) => {
      ctx.addIssue({ code: 'custom', message });
      return z.NEVER;
    };
    if (typeof value === 'string') {
      if (/^mem(ory)?\s*$/i.test(value)) return { type: 'memory' };
      const url = URL_RESOLVER.exec(value)?.[1];
      if (url === undefined) return refuse(unsupportedResolver);
      if (!/^https?:\/\/[^/]/i.test(url))
        return refuse(`error parsing account resolver URL: ${url}`);
      return { type: 'url', url };
    }
    const type = value.type.toLowerCase();
    const ttl = value.ttl === undefined ? undefined : parseDuration(value.ttl);
    if (ttl === undefined && value.ttl !== undefined) {
      return refuse(`expected a duration like "2m", got "${value.ttl}"`);
    }
    if (type === 'cache') {
      if (value.interval !== undefined) return refuse('CACHE does not accept sync');
      if (value.allow_delete) return refuse('CACHE does not accept allow_delete');
      return { type: 'cache', dir: value.dir, ttl, limit: value.limit };
    }
    if (type !== 'full') return refuse(unsupportedResolver);
    if (ttl) return refuse('FULL does not accept ttl');
    return { type: 'full', dir: value.dir, allowDelete: value.allow_delete };
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
  if (!resolver) return 'operator needs a resolver (MEMORY, URL, full or cache)';
  return { jwts, resolver: preload ? { ...resolver, preload } : resolver };
}
