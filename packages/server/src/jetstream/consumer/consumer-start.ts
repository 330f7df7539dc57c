/**
 * Where a new consumer starts in its stream, by deliver policy (nats-server's
 * selectStartingSeqNo). `last_per_subject` starts with a skip list: the last message of each
 * matching subject (of every filter), in stream order, then everything after the stream's last message.
 */
import { type ConsumerConfig, parseTimestamp, timestampToEpochNanos } from '@slipstream/jsapi';
import type { MessageStore } from '../store/message-store.js';
import type { SubjectFilters } from './consumer-filters.js';

export interface StartPosition {
  seq: number;
  /** last_per_subject: the sequences to deliver first, ascending. */
  skip: number[];
  /** last_per_subject: the stream's last sequence when the skip list was made. */
  resume: number;
}

export function startPosition(
  config: ConsumerConfig,
  filters: SubjectFilters,
  store: MessageStore,
): StartPosition {
  const state = store.state();
  let seq: number;
  let skip: number[] = [];
  if (config.opt_start_seq) {
    seq = config.opt_start_seq;
  } else {
    switch (config.deliver_policy) {
      case 'last':
        seq = filters.lastSeq(store);
        break;
      case 'last_per_subject':
        skip = filters.lastPerSubject(store);
        seq = skip[0] ?? state.lastSeq;
        break;
      case 'new':
        seq = state.lastSeq + 1;
        break;
      case 'by_start_time':
        seq = store.seqFromTime(timestampToEpochNanos(parseTimestamp(config.opt_start_time!)!));
        break;
      default:
        seq = state.firstSeq;
    }
  }
  if (state.messages === 0 && state.lastSeq === 0) seq = 1;
  else if (seq < state.firstSeq) seq = state.firstSeq;
  else if (seq > state.lastSeq) seq = state.lastSeq + 1;
  return { seq, skip, resume: state.lastSeq };
}
