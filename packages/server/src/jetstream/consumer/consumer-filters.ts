/**
 * A consumer's subject filters: nats-server 2.10's `filter_subject` or `filter_subjects`
 * (gatherSubjectFilters), none meaning every subject. Which stored subjects the consumer takes,
 * and the store look-ups answered across all of its filters. The filters of one consumer never
 * overlap (checkConsumerConfig refuses that), so a subject matches at most one of them and
 * their per-filter counts add up.
 */
import type { ConsumerConfig } from '@slipstream/jsapi';
import { isSubsetMatch, subjectMatches, subjectsCollide } from '@slipstream/protocol';
import type { MessageStore, StoredMessage } from '../store/message-store.js';

/** The filters a config names: filter_subject, else filter_subjects, else none. */
export function configuredFilters(config: ConsumerConfig): string[] {
  if (config.filter_subject) return [config.filter_subject];
  return config.filter_subjects ?? [];
}

/** The store's spelling of "every subject". */
const ALL = [''];

export class SubjectFilters {
  readonly subjects: readonly string[];
  /** What the store is asked with: the filters, or the one filter that takes everything. */
  readonly #queried: readonly string[];

  constructor(config: ConsumerConfig) {
    this.subjects = configuredFilters(config);
    this.#queried = this.subjects.length > 0 ? this.subjects : ALL;
  }

  get all(): boolean {
    return this.subjects.length === 0;
  }

  matches(subject: string): boolean {
    return this.all || this.subjects.some((filter) => subjectMatches(subject, filter));
  }

  /** Whether every subject `subject` matches is one of these filters' (nats-server isFilteredMatch). */
  covers(subject: string): boolean {
    return this.all || this.subjects.some((filter) => isSubsetMatch(subject, filter));
  }

  /** Whether some subject could match both (a workqueue's consumers may not share one). */
  collides(subjects: readonly string[]): boolean {
    if (this.all || subjects.length === 0) return true;
    return this.subjects.some((mine) => subjects.some((theirs) => subjectsCollide(mine, theirs)));
  }

  /** The first matching message at or after `seq`. */
  loadNext(store: MessageStore, seq: number): StoredMessage | undefined {
    let next: StoredMessage | undefined;
    for (const filter of this.#queried) {
      const message = store.loadNext(filter, seq);
      if (message && (!next || message.seq < next.seq)) next = message;
    }
    return next;
  }

  /** Matching messages from `seq` on; with `lastPerSubject`, only each subject's last. */
  numPending(store: MessageStore, seq: number, lastPerSubject: boolean): number {
    let count = 0;
    for (const filter of this.#queried) count += store.numPending(seq, filter, lastPerSubject);
    return count;
  }

  /** The sequence of the last matching message (0: none). */
  lastSeq(store: MessageStore): number {
    if (this.all) return store.state().lastSeq;
    let last = 0;
    for (const filter of this.subjects) {
      last = Math.max(last, store.filteredState(1, filter).last);
    }
    return last;
  }

  /** The last message of each matching subject, by sequence, ascending. */
  lastPerSubject(store: MessageStore): number[] {
    const seqs: number[] = [];
    for (const filter of this.#queried) {
      for (const state of store.subjectsState(filter).values()) seqs.push(state.last);
    }
    return seqs.sort((a, b) => a - b);
  }
}
