/**
 * Subject, wildcard and queue-name rules, following nats-server's sublist.go:
 * tokens are separated by `.`, `*` matches exactly one token, `>` matches one or more
 * trailing tokens. A `*` or `>` only counts as a wildcard when it is a whole token:
 * `foo.b*r` and `foo.>x` are literal subjects.
 */

const DOT = 0x2e;
const STAR = 0x2a;
const GT = 0x3e;

/** The characters nats-server refuses anywhere in a subject token. */
function isSubjectWhitespace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d || c === 0x0c;
}

const INVALID = 1;
const HAS_PARTIAL_WILDCARD = 2;
const HAS_FULL_WILDCARD = 4;

/**
 * One pass over a subject returning a bit set of INVALID / HAS_PARTIAL_WILDCARD /
 * HAS_FULL_WILDCARD, so validity and wildcard questions share a single scan and
 * allocate nothing (they run on every pedantic PUB and every SUB).
 */
function scanSubject(subject: string): number {
  const length = subject.length;
  if (length === 0) return INVALID;
  let flags = 0;
  let tokenStart = 0;
  for (let i = 0; i <= length; i++) {
    const c = i < length ? subject.charCodeAt(i) : DOT;
    if (c === DOT) {
      const tokenLength = i - tokenStart;
      // An empty token, or any token after a `>`, makes the subject invalid.
      if (tokenLength === 0 || flags & HAS_FULL_WILDCARD) flags |= INVALID;
      else if (tokenLength === 1) {
        const only = subject.charCodeAt(tokenStart);
        if (only === STAR) flags |= HAS_PARTIAL_WILDCARD;
        else if (only === GT) flags |= HAS_FULL_WILDCARD;
      }
      tokenStart = i + 1;
    } else if (isSubjectWhitespace(c)) {
      flags |= INVALID;
    }
  }
  return flags;
}

/**
 * True when `subject` is valid for SUB: non-empty tokens, no whitespace, `>` only as the
 * last token. Wildcards are allowed. Same result as nats-server's `IsValidSubject`.
 */
export function isValidSubscribeSubject(subject: string): boolean {
  return (scanSubject(subject) & INVALID) === 0;
}

/**
 * True when `subject` is a valid literal subject (what a pedantic server accepts for PUB):
 * valid as a subscribe subject and without a `*` or `>` token.
 */
export function isValidPublishSubject(subject: string): boolean {
  return scanSubject(subject) === 0;
}

/**
 * True when `subject` has a whole-token `*` or `>`. Does not check validity
 * (like nats-server's `subjectHasWildcard`): `foo..*` has a wildcard and is invalid.
 */
export function hasWildcard(subject: string): boolean {
  return (scanSubject(subject) & (HAS_PARTIAL_WILDCARD | HAS_FULL_WILDCARD)) !== 0;
}

/**
 * True when `queue` can name a queue group: non-empty and without whitespace. nats-server
 * splits SUB arguments on whitespace, so any other character (dots and `*` included) is
 * taken literally.
 */
export function isValidQueueName(queue: string): boolean {
  if (queue.length === 0) return false;
  for (let i = 0; i < queue.length; i++) {
    if (isSubjectWhitespace(queue.charCodeAt(i))) return false;
  }
  return true;
}

/** The tokens of a subject (`'a.b.>'` → `['a', 'b', '>']`); empty tokens are kept. */
export function tokenize(subject: string): string[] {
  return subject.split('.');
}

/** Index of the `.` ending the token that starts at `from`, or the subject length. */
function tokenEnd(subject: string, from: number): number {
  const dot = subject.indexOf('.', from);
  return dot === -1 ? subject.length : dot;
}

function sameToken(a: string, aStart: number, b: string, bStart: number, length: number): boolean {
  for (let i = 0; i < length; i++) {
    if (a.charCodeAt(aStart + i) !== b.charCodeAt(bStart + i)) return false;
  }
  return true;
}

/**
 * True when the message subject `subject` is delivered to a subscription on `pattern`.
 * `subject` is compared token by token as a literal (a `*` token in it only matches a
 * `*` or wildcard in the pattern), as nats-server does for non-pedantic wildcard
 * publishes. Both arguments are assumed valid; check with {@link isValidPublishSubject}
 * and {@link isValidSubscribeSubject} first, since the server delivers nothing for an
 * invalid subject. Allocation free.
 */
export function subjectMatches(subject: string, pattern: string): boolean {
  const subjectLength = subject.length;
  const patternLength = pattern.length;
  let s = 0;
  let p = 0;
  for (;;) {
    const pEnd = tokenEnd(pattern, p);
    const sEnd = tokenEnd(subject, s);
    const pTokenLength = pEnd - p;
    if (pTokenLength === 1 && pattern.charCodeAt(p) === GT) return true;
    const wildcard = pTokenLength === 1 && pattern.charCodeAt(p) === STAR;
    if (
      !wildcard &&
      (pTokenLength !== sEnd - s || !sameToken(pattern, p, subject, s, pTokenLength))
    ) {
      return false;
    }
    const patternDone = pEnd === patternLength;
    const subjectDone = sEnd === subjectLength;
    if (patternDone || subjectDone) return patternDone && subjectDone;
    p = pEnd + 1;
    s = sEnd + 1;
  }
}

/**
 * True when at least one literal subject is matched by both `a` and `b` (either may hold
 * wildcards). Used to reject overlapping stream subjects and consumer filters.
 *
 * Exact: `foo.*` and `foo.bar.>` do not collide (no subject has both two tokens and
 * three or more). nats-server 2.9.10 agrees when checking stream subjects (it creates
 * streams on both side by side, observed); the `SubjectsCollide` of later sublist.go
 * compares only the common prefix and would call them colliding. Invalid subjects never
 * collide.
 */
export function subjectsCollide(a: string, b: string): boolean {
  if (!isValidSubscribeSubject(a) || !isValidSubscribeSubject(b)) return false;
  const ta = tokenize(a);
  const tb = tokenize(b);
  const common = Math.min(ta.length, tb.length);
  for (let i = 0; i < common; i++) {
    const x = ta[i]!;
    const y = tb[i]!;
    // A `>` swallows whatever the other side has left, which is at least this token.
    if (x === '>' || y === '>') return true;
    if (x !== y && x !== '*' && y !== '*') return false;
  }
  return ta.length === tb.length;
}

/**
 * True when every literal subject matched by `subject` is also matched by `pattern`,
 * i.e. `pattern` covers `subject` (`foo.*` is a subset of `>`, `*.*` and `foo.*`, but not
 * of `foo.bar`). Same results as nats-server's `subjectIsSubsetMatch` on valid input;
 * invalid subjects are never a subset.
 */
export function isSubsetMatch(subject: string, pattern: string): boolean {
  if (!isValidSubscribeSubject(subject) || !isValidSubscribeSubject(pattern)) return false;
  const ts = tokenize(subject);
  const tp = tokenize(pattern);
  for (let i = 0; i < tp.length; i++) {
    const p = tp[i]!;
    const s = ts[i];
    if (s === undefined) return false;
    if (p === '>') return true;
    // The subject's `>` also covers subjects longer than the pattern can match.
    if (s === '>') return false;
    if (p !== '*' && (s === '*' || s !== p)) return false;
  }
  return ts.length === tp.length;
}
