import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isSubsetMatch, subjectMatches, subjectsCollide } from '../src/subjects.js';

// Patterns over tokens a, b, * and > (last only), up to 4 tokens.
const token = fc.constantFrom('a', 'b', '*');
const pattern = fc
  .tuple(fc.array(token, { minLength: 1, maxLength: 4 }), fc.boolean())
  .map(([tokens, tail]) => (tail ? [...tokens.slice(0, 3), '>'] : tokens).join('.'));

// Every literal of 1..5 tokens over a, b and c (c stands for "any other token"). A witness
// for a collision needs at most 4 tokens and a counterexample to a subset at most 5.
const literals: string[] = [];
for (let length = 1; length <= 5; length++) {
  let level = [''];
  for (let i = 0; i < length; i++)
    level = level.flatMap((p) => ['a', 'b', 'c'].map((t) => (p ? `${p}.${t}` : t)));
  literals.push(...level);
}

/** Independent oracle: the pattern as a regular expression. */
function oracle(subject: string, pat: string): boolean {
  const source = pat
    .split('.')
    .map((t) =>
      t === '*'
        ? '[^.]+'
        : t === '>'
          ? '[^.]+(\\.[^.]+)*'
          : t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'),
    )
    .join('\\.');
  return new RegExp(`^${source}$`).test(subject);
}

describe('subject properties', () => {
  it('subjectMatches agrees with a regular-expression oracle', () => {
    fc.assert(
      fc.property(pattern, fc.constantFrom(...literals), (pat, literal) => {
        expect(subjectMatches(literal, pat)).toBe(oracle(literal, pat));
      }),
      { numRuns: 2000 },
    );
  });

  it('subjectsCollide is true exactly when some literal matches both', () => {
    fc.assert(
      fc.property(pattern, pattern, (a, b) => {
        const witness = literals.some((l) => oracle(l, a) && oracle(l, b));
        expect(subjectsCollide(a, b)).toBe(witness);
      }),
      { numRuns: 500 },
    );
  });

  it('isSubsetMatch is true exactly when every literal matched by the subject matches the pattern', () => {
    fc.assert(
      fc.property(pattern, pattern, (subject, pat) => {
        const covered = literals.every((l) => !oracle(l, subject) || oracle(l, pat));
        expect(isSubsetMatch(subject, pat)).toBe(covered);
      }),
      { numRuns: 500 },
    );
  });
});
