/**
 * A subject mapping from a source pattern to a destination (republish): the destination's
 * `$N` or `{{wildcard(N)}}` takes the Nth wildcard token of the source; a destination that
 * only repeats the source's wildcards takes them in order, as nats-server's transforms do.
 */
import { subjectMatches } from '@slipstream/protocol';

export type SubjectTransform = (subject: string) => string | undefined;

const reference = /^(?:\$(\d+)|\{\{\s*wildcard\s*\(\s*(\d+)\s*\)\s*\}\})$/;

export function subjectTransform(source: string, destination: string): SubjectTransform {
  const sourceTokens = source.split('.');
  const destinationTokens = destination.split('.');
  const wildcardPositions = sourceTokens.flatMap((t, i) => (t === '*' || t === '>' ? [i] : []));
  return (subject) => {
    if (!subjectMatches(subject, source)) return undefined;
    const tokens = subject.split('.');
    const captured = wildcardPositions.map((position) =>
      sourceTokens[position] === '>' ? tokens.slice(position).join('.') : tokens[position]!,
    );
    let next = 0;
    return destinationTokens
      .map((token) => {
        const ref = reference.exec(token);
        if (ref) return captured[Number(ref[1] ?? ref[2]) - 1] ?? '';
        if (token === '*' || token === '>') return captured[next++] ?? token;
        return token;
      })
      .join('.');
  };
}
