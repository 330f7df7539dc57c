/**
 * An account's JetStream limits, apart from the JetStream code itself: the accounts read them from
 * the options whether or not JetStream runs, and must not load streams and stores to do so.
 */

/** An account's JetStream limits (nats-server's account `jetstream {}` block); -1: none. */
export interface JsAccountLimits {
  readonly maxMemory: number;
  readonly maxFile: number;
  readonly maxStreams: number;
  readonly maxConsumers: number;
}

export const UNLIMITED: JsAccountLimits = {
  maxMemory: -1,
  maxFile: -1,
  maxStreams: -1,
  maxConsumers: -1,
};
