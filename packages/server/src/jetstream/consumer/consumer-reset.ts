/**
 * CONSUMER.RESET (nats-server 2.14, ADR-60): a consumer starts over as if created at a stream
 * sequence, its pending and redelivered messages forgotten, its delivered and ack floor
 * consumer sequences back to 0 and its ack floor stream sequence just below that sequence.
 * An empty body (or `seq` 0) resets to the ack floor; another sequence is allowed only for
 * deliver policy all (anywhere), by_start_sequence (not below opt_start_seq) and
 * by_start_time (not below the first message at opt_start_time) (resetStartingSeqLocked,
 * v2.14.2 consumer.go:2807-2875). The consumer answers on its own subscription, as
 * nats-server's processResetReq (consumer.go:4495-4530): no consumer, no answer.
 */
import {
  ApiError,
  type ConsumerConfig,
  decodeApiRequest,
  jsErrors,
  parseTimestamp,
  timestampToEpochNanos,
} from '@slipstream/jsapi';
import type { MessageStore } from '../store/message-store.js';

/** The request's sequence (0: to the ack floor); a body that is not one is refused. */
export function resetRequestSeq(body: Uint8Array): number {
  const decoded = decodeApiRequest('consumerReset', body);
  if (!decoded.ok) throw decoded.error;
  return decoded.value?.seq ?? 0;
}

/** The stream sequence the consumer starts over from, or JSConsumerInvalidResetErr. */
export function resetSequence(
  config: ConsumerConfig,
  ackFloorStream: number,
  requested: number,
  store: MessageStore,
): number {
  if (requested === 0) return ackFloorStream + 1;
  const refuse = (err: string) => ApiError.of(jsErrors.JSConsumerInvalidResetErr, { err });
  switch (config.deliver_policy ?? 'all') {
    case 'all':
      return requested;
    case 'by_start_sequence':
      if (requested < (config.opt_start_seq ?? 0)) throw refuse('below start seq');
      return requested;
    case 'by_start_time': {
      const start = timestampToEpochNanos(parseTimestamp(config.opt_start_time!)!);
      if (requested < store.seqFromTime(start)) throw refuse('below start time');
      return requested;
    }
    default:
      throw refuse('not allowed');
  }
}
