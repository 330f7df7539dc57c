import type { Subscription } from './subscription.js';

/** Why a subscription did not get a message its subject matched. */
export type DeliveryRefusal = 'echo' | 'deny' | 'closed';

/**
 * Follows the deliveries of the publish being routed now. Message tracing (msg-trace.ts) sets one
 * for the duration of a traced publish; the router knows only this hook, asked once per delivery.
 * None is set almost always, so an untraced delivery pays one check.
 */
export interface DeliveryTrace {
  /**
   * Records the delivery of the message to `sub`, refused for `refusal` or not, and decides
   * whether `send` runs; returns whether the subscriber took it.
   */
  deliver(sub: Subscription, refusal: DeliveryRefusal | undefined, send: () => boolean): boolean;
}

let current: DeliveryTrace | undefined;

/** The trace following the publish being routed now, if any. */
export function deliveryTrace(): DeliveryTrace | undefined {
  return current;
}

/** Sets (or, with undefined, clears) the trace that follows what is routed from now on. */
export function followDeliveries(trace: DeliveryTrace | undefined): void {
  current = trace;
}
