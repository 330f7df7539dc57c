import {
  hasWildcard,
  isValidPublishSubject,
  isValidSubscribeSubject,
  subjectMatches,
} from '@slipstream/protocol';
import { type SubjectTransform, subjectTransform } from '../jetstream/shared/subject-transform.js';

/** One weighted destination of a mapping (nats-server's MapDest): `weight` in percent. */
export interface MappingDestination {
  destination: string;
  weight: number;
}

/**
 * Where a subject published in an account goes instead (nats-server's `mappings`): one
 * destination, or several that share the publishes by weight. A destination may take the
 * source's wildcards (`$1`, `{{wildcard(1)}}`) and reshape them (partition, split, ...).
 */
export type MappingOptions = string | MappingDestination[];

interface Mapping {
  readonly source: string;
  /** Ascending upper bounds (exclusive) of a draw in [0, 100), each with its destination. */
  readonly destinations: {
    readonly upTo: number;
    readonly map: SubjectTransform;
    /** As configured, for /accountz. */
    readonly destination: string;
    readonly weight: number;
  }[];
}

/**
 * An account's subject mappings, applied to what its clients publish before routing (and to the
 * requests a service import sends in), as nats-server 2.9.10 does: the first mapping whose
 * source matches picks a destination by weight; weights short of 100% leave the rest of the
 * publishes on the source subject, unless the source is one of the destinations, in which case
 * the rest are dropped.
 */
export class SubjectMappings {
  readonly #mappings: Mapping[] = [];

  /** Throws an Error naming the mapping for one nats-server refuses too. */
  constructor(mappings: Readonly<Record<string, MappingOptions>>) {
    for (const [source, option] of Object.entries(mappings)) {
      const wrong = (why: string) => new Error(`mapping "${source}": ${why}`);
      if (!isValidSubscribeSubject(source)) throw wrong('not a valid subject');
      const given =
        typeof option === 'string' ? [{ destination: option, weight: 100 }] : [...option];
      const seen = new Set<string>();
      let total = 0;
      for (const { destination, weight } of given) {
        if (seen.has(destination)) throw wrong(`duplicate entry for "${destination}"`);
        seen.add(destination);
        if (!Number.isInteger(weight) || weight < 0 || weight > 100) {
          throw wrong(`invalid weight ${weight} for "${destination}" (0 to 100%)`);
        }
        total += weight;
        if (total > 100) throw wrong('total weight needs to be <= 100');
      }
      if (total !== 100 && !seen.has(source)) {
        given.push({ destination: source, weight: given.length === 0 ? 100 : 100 - total });
      }
      given.sort((a, b) => a.weight - b.weight);
      let upTo = 0;
      const destinations = given.map(({ destination, weight }) => {
        upTo += weight;
        return { upTo, map: compileDestination(source, destination, wrong), destination, weight };
      });
      this.#mappings.push({ source, destinations });
    }
  }

  /** Each mapping's source and destinations, in the order of the draw (as /accountz lists them). */
  get list(): { source: string; destinations: MappingDestination[] }[] {
    return this.#mappings.map(({ source, destinations }) => ({
      source,
      destinations: destinations.map(({ destination, weight }) => ({ destination, weight })),
    }));
  }

  /**
   * The subject a publish on `subject` goes to: itself when no mapping matches, an empty
   * subject (which nobody receives) when the draw fell on no destination.
   */
  map(subject: string): string {
    const mapping = this.#mappings.find((m) => subjectMatches(subject, m.source));
    if (!mapping) return subject;
    const draw = Math.floor(Math.random() * 100);
    return mapping.destinations.find((d) => draw < d.upTo)?.map(subject) ?? '';
  }
}

/**
 * The destination as a function of the published subject. A source without wildcards maps to
 * the destination as written; one with wildcards needs each of them placed in the destination
 * (nats-server 2.9.10 refuses a mapping that leaves one out).
 */
function compileDestination(
  source: string,
  destination: string,
  wrong: (why: string) => Error,
): SubjectTransform {
  if (!hasWildcard(source)) {
    if (!isValidPublishSubject(destination)) throw wrong(`invalid destination "${destination}"`);
    return () => destination;
  }
  const numbered = source === destination ? numberWildcards(destination) : destination;
  let map: SubjectTransform;
  try {
    map = subjectTransform(source, numbered);
  } catch (error) {
    throw wrong((error as Error).message);
  }
  const stars = source.split('.').filter((token) => token === '*').length;
  const placed = numbered.split('.').filter((token) => /^\$\d|^\{\{.*\}\}$/.test(token)).length;
  if (placed < stars) {
    throw wrong(
      `invalid mapping destination: not using all of the token wildcard(s) in ${destination}`,
    );
  }
  return (subject) => map(subject) ?? subject;
}

/**
 * `a.*.*` as `a.$1.$2`: a destination that repeats the source's wildcards in order (a source
 * kept as its own destination, an import's `to`), as nats-server numbers them.
 */
export function numberWildcards(subject: string): string {
  let star = 0;
  return subject
    .split('.')
    .map((token) => (token === '*' ? `$${++star}` : token))
    .join('.');
}
