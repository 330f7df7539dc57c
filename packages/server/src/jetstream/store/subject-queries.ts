/**
 * Look-ups by subject filter over a store's per-subject state and its log, which the engine's
 * reads, counts and purges share: the subjects a filter matches, its stored sequences in a
 * range, the next one from a sequence on, and the sequences missing between first and last.
 */
import { hasWildcard, subjectMatches } from '@slipstream/protocol';
import type { MessageLog } from './message-log.js';
import type { SubjectState } from './message-store.js';

/** Above this many subjects a wildcard look-up scans messages instead of subjects. */
const SCAN_SUBJECTS_ABOVE = 256;

export function isAll(filter: string): boolean {
  return filter === '' || filter === '>';
}

export function* matchingEntries(
  subjects: Map<string, SubjectState>,
  filter: string,
): Iterable<[string, SubjectState]> {
  if (isAll(filter)) {
    yield* subjects;
  } else if (!hasWildcard(filter)) {
    const state = subjects.get(filter);
    if (state) yield [filter, state];
  } else {
    for (const entry of subjects) if (subjectMatches(entry[0], filter)) yield entry;
  }
}

export function* matchingSubjects(
  subjects: Map<string, SubjectState>,
  filter: string,
): Iterable<SubjectState> {
  for (const [, state] of matchingEntries(subjects, filter)) yield state;
}

/** Sequences in [from, to] whose subject matches `filter`, ascending. */
export function* matchingSeqs(
  log: MessageLog,
  filter: string,
  from: number,
  to: number,
): Iterable<number> {
  if (!isAll(filter) && !hasWildcard(filter)) {
    for (let seq = log.nextSeqOfSubject(filter, from - 1); seq !== undefined && seq <= to; ) {
      yield seq;
      seq = log.nextSeqOfSubject(filter, seq);
    }
    return;
  }
  for (const { seq, subject } of log.scan(from)) {
    if (seq > to) return;
    if (isAll(filter) || subjectMatches(subject, filter)) yield seq;
  }
}

export function nextMatching(
  subjects: Map<string, SubjectState>,
  log: MessageLog,
  lastSeq: number,
  filter: string,
  start: number,
): number | undefined {
  if (start > lastSeq) return undefined;
  if (isAll(filter)) return log.nextSeq(start - 1);
  if (!hasWildcard(filter)) {
    const state = subjects.get(filter);
    if (!state || state.last < start) return undefined;
    return state.first >= start ? state.first : log.nextSeqOfSubject(filter, start - 1);
  }
  if (subjects.size > SCAN_SUBJECTS_ABOVE) {
    for (const seq of matchingSeqs(log, filter, start, lastSeq)) return seq;
    return undefined;
  }
  let next: number | undefined;
  for (const [subject, state] of matchingEntries(subjects, filter)) {
    if (state.last < start) continue;
    const first = state.first >= start ? state.first : log.nextSeqOfSubject(subject, start - 1)!;
    if (next === undefined || first < next) next = first;
  }
  return next;
}

export function deletedSeqs(
  log: MessageLog,
  firstSeq: number,
  lastSeq: number,
  count: number,
): number[] {
  const deleted: number[] = [];
  if (count === 0) return deleted;
  let expected = firstSeq;
  for (const { seq } of log.scan(firstSeq)) {
    for (; expected < seq; expected++) deleted.push(expected);
    expected = seq + 1;
  }
  for (; expected <= lastSeq; expected++) deleted.push(expected);
  return deleted;
}

/** The messages from `start` on whose subject matches `filter`: count, first and last. */
export function stateFrom(
  subjects: Map<string, SubjectState>,
  log: MessageLog,
  start: number,
  filter: string,
): SubjectState {
  const result: SubjectState = { messages: 0, first: 0, last: 0 };
  for (const [subject, state] of matchingEntries(subjects, filter)) {
    if (state.last < start) continue;
    const partial = state.first < start;
    const first = partial ? log.nextSeqOfSubject(subject, start - 1)! : state.first;
    result.messages += partial ? log.countOfSubjectFrom(subject, start) : state.messages;
    if (result.first === 0 || first < result.first) result.first = first;
    if (state.last > result.last) result.last = state.last;
  }
  return result;
}
