import type { ConsumerConfig } from '@slipstream/jsapi';
import type { PurgeOptions } from '../store/message-store.js';

/**
 * What a stream needs of its consumers, and all it knows of them: the consumer room's
 * `StreamConsumers` is one, made for each stream by whoever creates it (`JsAccount`).
 */
export interface StreamConsumerSet {
  readonly count: number;
  /** The consumers, sorted by name. */
  sorted(): ReadonlyArray<{ readonly name: string; readonly config: ConsumerConfig }>;
  /** The stream stored a message on `subject`. */
  appended(subject: string): void;
  /** Whether some consumer will want a message on `subject` (interest retention). */
  interestedIn(subject: string): boolean;
  /** The stream was purged with these options (or a rollup purged it). */
  purged(options: PurgeOptions): void;
  retentionBecameInterest(): void;
  /** Writes every state change still waiting (a snapshot follows). */
  saveStates(): void;
  /** Stops every consumer: the stream closes. */
  close(): void;
  /** Stops every consumer as deleted: the stream is deleted. */
  deleteAll(): void;
}
