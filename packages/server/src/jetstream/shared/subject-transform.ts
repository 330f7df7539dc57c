/**
 * Subject mappings from a source pattern to a destination, as nats-server's subject transforms
 * (server/subject_transform.go and sublist.go ValidateMapping, v2.11.0): a stream's
 * `subject_transform`, its sources' and mirror's `subject_transforms`, and republish. A
 * destination token `$N` or `{{wildcard(N)}}` takes the Nth `*` of the source; the functions
 * partition, splitFromLeft / splitFromRight, sliceFromLeft / sliceFromRight and split reshape
 * one; a final `>` takes what the source's `>` matched. An empty source means `>`.
 */
import { isValidSubscribeSubject, subjectMatches } from '@slipstream/protocol';

export type SubjectTransform = (subject: string) => string | undefined;

const INVALID = 'invalid mapping destination';

function mappingError(what: string, token: string): Error {
  return new Error(`${INVALID}: ${what} in ${token}`);
}

/** One destination token at run time: the subject's tokens and where its `*`s are → text. */
type TokenMapper = (tokens: string[], starPositions: number[]) => string;

interface MappingFunction {
  /** Its name as nats-server matches it, first letter and word starts in either case. */
  readonly name: RegExp;
  /** Checks the arguments; the mapper and the `*` indexes it reads. */
  compile(args: string[], token: string): { indexes: number[]; map: TokenMapper };
}

const notEnough = (token: string) =>
  mappingError('not enough arguments passed to the function', token);
const tooMany = (token: string) => mappingError('too many arguments passed to the function', token);
const badArgument = (token: string) =>
  mappingError('function argument is invalid or in the wrong format', token);

/** Go's strconv.Atoi on a trimmed argument. */
function integer(arg: string, token: string): number {
  const text = arg.trim();
  if (!/^[+-]?\d+$/.test(text)) throw badArgument(token);
  return Number(text);
}

/** The token of the `*` at 1-based `index` (nats-server reads token 0 for an index below 1). */
function starToken(tokens: string[], starPositions: number[], index: number): string {
  return tokens[starPositions[index - 1] ?? 0] ?? '';
}

/** A function of one `*` and one number: `f(index, n)`. */
function indexAndNumber(
  name: RegExp,
  reshape: (token: string, n: number) => string,
): MappingFunction {
  return {
    name,
    compile: (args, token) => {
      if (args.length < 2) throw notEnough(token);
      if (args.length > 2) throw tooMany(token);
      const index = integer(args[0]!, token);
      const n = integer(args[1]!, token);
      return {
        indexes: [index],
        map: (tokens, stars) => reshape(starToken(tokens, stars, index), n),
      };
    },
  };
}

const fits = (token: string, n: number) => n > 0 && n < token.length;

/** FNV-1a, 32 bits: nats-server's partition hash. */
function fnv1a32(bytes: Uint8Array): number {
  let hash = 0x811c9dc5;
  for (const byte of bytes) hash = Math.imul(hash ^ byte, 0x01000193) >>> 0;
  return hash;
}

/** In nats-server's order of matching (subject_transform.go indexPlaceHolders). */
const FUNCTIONS: readonly MappingFunction[] = [
  {
    name: /[wW]ildcard/,
    compile: (args, token) => {
      if (args.length === 1 && args[0] === '') throw notEnough(token);
      if (args.length > 1) throw tooMany(token);
      const index = integer(args[0]!, token);
      return { indexes: [index], map: (tokens, stars) => starToken(tokens, stars, index) };
    },
  },
  {
    name: /[pP]artition/,
    compile: (args, token) => {
      if (args.length < 2) throw notEnough(token);
      const buckets = integer(args[0]!, token);
      const indexes = args.slice(1).map((arg) => integer(arg, token));
      return {
        indexes,
        map: (tokens, stars) => {
          const key = indexes.map((index) => starToken(tokens, stars, index)).join('');
          return String(fnv1a32(Buffer.from(key)) % buckets);
        },
      };
    },
  },
  indexAndNumber(/[sS]plit[fF]rom[lL]eft/, (token, at) =>
    fits(token, at) ? `${token.slice(0, at)}.${token.slice(at)}` : token,
  ),
  indexAndNumber(/[sS]plit[fF]rom[rR]ight/, (token, at) =>
    fits(token, at) ? `${token.slice(0, -at)}.${token.slice(-at)}` : token,
  ),
  indexAndNumber(/[sS]lice[fF]rom[lL]eft/, (token, size) => {
    if (!fits(token, size)) return token;
    const slices: string[] = [];
    for (let i = 0; i < token.length; i += size) slices.push(token.slice(i, i + size));
    return slices.join('.');
  }),
  indexAndNumber(/[sS]lice[fF]rom[rR]ight/, (token, size) => {
    if (!fits(token, size)) return token;
    const head = token.length % size;
    const slices = head > 0 ? [token.slice(0, head)] : [];
    for (let i = head; i < token.length; i += size) slices.push(token.slice(i, i + size));
    return slices.join('.');
  }),
  {
    name: /[sS]plit/,
    compile: (args, token) => {
      if (args.length < 2) throw notEnough(token);
      if (args.length > 2) throw tooMany(token);
      const index = integer(args[0]!, token);
      const delimiter = args[1]!;
      if (delimiter.includes(' ') || delimiter.includes('.')) throw badArgument(token);
      return {
        indexes: [index],
        map: (tokens, stars) =>
          starToken(tokens, stars, index)
            .split(delimiter)
            .filter((part) => part !== '')
            .join('.'),
      };
    },
  },
];

const isMustache = (token: string) =>
  token.length > 4 && token.startsWith('{{') && token.endsWith('}}');

/** The function a `{{name(args)}}` token calls and its arguments, or undefined for none known. */
function functionCall(token: string): { fn: MappingFunction; args: string[] } | undefined {
  for (const fn of FUNCTIONS) {
    const call = new RegExp(`\\{\\{\\s*${fn.name.source}\\s*\\((.*)\\)\\s*\\}\\}`).exec(token);
    if (call) return { fn, args: call[1]!.split(/,\s*/) };
  }
  return undefined;
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
  mappers: TokenMapper[];
  sourceTokens: string[];
  endsWithRest: boolean;
}

function compile(sourcePattern: string, destination: string): Compiled {
  const source = sourcePattern || '>';
  const destinationTokens = destination.split('.');
  // ValidateMapping: every token present, nothing after `>`, functions known, no spaces.
  let afterRest = false;
  for (const token of destinationTokens) {
    if (token === '' || afterRest) throw new Error(`${INVALID}: invalid transform in ${token}`);
    if (isMustache(token)) {
      if (!functionCall(token)) throw mappingError('unknown function', token);
    } else if (token === '>') {
      afterRest = true;
    } else if (/[\t\n\f\r ]/.test(token)) {
      throw new Error(`${INVALID}: invalid transform`);
    }
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
  const mappers = destinationTokens.map((token): TokenMapper => {
    const reference = /^\$([+-]?\d+)$/.exec(token);
    const call = reference
      ? { fn: FUNCTIONS[0]!, args: [reference[1]!] }
      : isMustache(token)
        ? functionCall(token)
        : undefined;
    if (!call) return () => token;
    const { indexes, map } = call.fn.compile(call.args, token);
    if (stars === 0) throw mappingError('wildcard index out of range', token);
    for (const index of indexes) {
      if (index > stars) throw mappingError('wildcard index out of range', `${token}: [${index}]`);
    }
    return map;
  });
  return { mappers, sourceTokens, endsWithRest: destinationRest };
}

/** The mapping as a function: the mapped subject, or undefined when `subject` does not match. */
export function subjectTransform(source: string, destination: string): SubjectTransform {
  const pattern = source || '>';
  const { mappers, sourceTokens, endsWithRest } = compile(pattern, destination);
  const starPositions = sourceTokens.flatMap((t, i) => (t === '*' ? [i] : []));
  return (subject) => {
    if (!subjectMatches(subject, pattern)) return undefined;
    const subjectTokens = subject.split('.');
    const mapped = mappers.map((map) => map(subjectTokens, starPositions));
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
