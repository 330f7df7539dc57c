/**
 * Subject mappings from a source pattern to a destination, as nats-server's subject transforms
 * (server/subject_transform.go, v2.11.0): a stream's `subject_transform`, its sources' and
 * mirror's `subject_transforms`, and republish. A destination token `$N` or `{{wildcard(N)}}`
 * takes the Nth `*` of the source; a final `>` takes what the source's `>` matched. An empty
 * source means `>`.
 */
import { isValidSubscribeSubject, subjectMatches } from '@slipstream/protocol';

export type SubjectTransform = (subject: string) => string | undefined;

const WILDCARD_FUNCTION = /^\{\{\s*[wW]ildcard\s*\((.*)\)\s*\}\}$/;
/** Mapping functions nats-server 2.11.0 knows besides wildcard(); this server does not run them. */
const OTHER_FUNCTIONS =
  /^\{\{\s*(?:[pP]artition|[sS]plit[fF]rom[lL]eft|[sS]plit[fF]rom[rR]ight|[sS]lice[fF]rom[lL]eft|[sS]lice[fF]rom[rR]ight|[sS]plit)\s*\(.*\)\s*\}\}$/;

const INVALID = 'invalid mapping destination';

/** The `*` a destination token refers to (1-based), or undefined for a literal token. */
function wildcardReference(token: string): number | undefined {
  if (token.length > 1 && token.startsWith('$')) {
    const index = Number(token.slice(1));
    return /^\d+$/.test(token.slice(1)) ? index : undefined;
  }
  const call = WILDCARD_FUNCTION.exec(token);
  if (!call) return undefined;
  const args = call[1]!.split(/,\s*/);
  if (args.length === 1 && args[0] === '')
    throw mappingError('not enough arguments passed to the function', token);
  if (args.length > 1) throw mappingError('too many arguments passed to the function', token);
  const index = args[0]!.trim();
  if (!/^-?\d+$/.test(index))
    throw mappingError('function argument is invalid or in the wrong format', token);
  return Number(index);
}

function mappingError(what: string, token: string): Error {
  return new Error(`${INVALID}: ${what} in ${token}`);
}

function isMustache(token: string): boolean {
  return token.length > 4 && token.startsWith('{{') && token.endsWith('}}');
}

/**
 * Why nats-server (ValidateMapping, then NewSubjectTransform) refuses this mapping, in its
 * words, or undefined when it is valid. An empty destination is valid and maps nothing.
 */
export function transformProblem(source: string, destination: string): string | undefined {
  if (destination === '') return undefined;
  try {
    compile(source, destination);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

interface Compiled {
  /** Per destination token: the index into the captured `*` tokens, or the literal. */
  tokens: Array<{ wildcard: number } | { literal: string }>;
  sourceTokens: string[];
  endsWithRest: boolean;
}

function compile(sourcePattern: string, destination: string): Compiled {
  const source = sourcePattern || '>';
  const destinationTokens = destination.split('.');
  let afterRest = false;
  for (const token of destinationTokens) {
    if (token === '' || afterRest) throw new Error(`${INVALID}: invalid transform in ${token}`);
    if (isMustache(token)) {
      if (!WILDCARD_FUNCTION.test(token) && !OTHER_FUNCTIONS.test(token)) {
        throw mappingError('unknown function', token);
      }
      continue;
    }
    if (token === '>') afterRest = true;
    else if (/[\t\n\f\r ]/.test(token)) throw new Error(`${INVALID}: invalid transform`);
  }
  const sourceTokens = source.split('.');
  const stars = sourceTokens.filter((t) => t === '*').length;
  const sourceRest = sourceTokens.at(-1) === '>';
  const destinationRest = destinationTokens.at(-1) === '>';
  if (
    !isValidSubscribeSubject(source) ||
    !isValidSubscribeSubject(destination) ||
    destinationTokens.includes('*') ||
    sourceRest !== destinationRest
  ) {
    throw new Error('invalid subject');
  }
  const tokens = destinationTokens.map((token) => {
    if (OTHER_FUNCTIONS.test(token)) {
      throw mappingError('function not supported by this server', token);
    }
    const index = wildcardReference(token);
    if (index === undefined) return { literal: token };
    if (stars === 0) throw mappingError('wildcard index out of range', token);
    if (index > stars) throw mappingError('wildcard index out of range', `${token}: [${index}]`);
    return { wildcard: index - 1 };
  });
  return { tokens, sourceTokens, endsWithRest: destinationRest };
}

/** The mapping as a function: the mapped subject, or undefined when `subject` does not match. */
export function subjectTransform(source: string, destination: string): SubjectTransform {
  const pattern = source || '>';
  const { tokens, sourceTokens, endsWithRest } = compile(pattern, destination);
  const starPositions = sourceTokens.flatMap((t, i) => (t === '*' ? [i] : []));
  return (subject) => {
    if (!subjectMatches(subject, pattern)) return undefined;
    const subjectTokens = subject.split('.');
    const mapped = tokens.map((token) =>
      'literal' in token ? token.literal : (subjectTokens[starPositions[token.wildcard]!] ?? ''),
    );
    if (endsWithRest) mapped.splice(-1, 1, ...subjectTokens.slice(sourceTokens.length - 1));
    return mapped.join('.');
  };
}

/**
 * A list of mappings (a source's or mirror's `subject_transforms`): the first whose source
 * matches maps the subject; an empty destination keeps it. Undefined when none matches.
 */
export function firstMatchingTransform(
  transforms: ReadonlyArray<{ src: string; dest: string }>,
): SubjectTransform {
  const compiled = transforms.map(({ src, dest }) => ({
    pattern: src || '>',
    map: dest === '' ? undefined : subjectTransform(src, dest),
  }));
  return (subject) => {
    for (const { pattern, map } of compiled) {
      if (subjectMatches(subject, pattern)) return map ? map(subject) : subject;
    }
    return undefined;
  };
}
