/**
 * The ack floor of an explicit-ack consumer: just below the oldest message still pending, or
 * at the last delivery once none is, whether acks come in order, out of order, or with a gap in
 * the stream sequences (a filtered consumer) wider than the floor's look-ahead.
 */
import { expect, it } from 'vitest';
import { DeliveryState } from '../src/jetstream/consumer/consumer-state.js';

/** Delivers the stream sequences given, in order, each as the next delivery. */
function delivered(seqs: number[]): DeliveryState {
  const state = new DeliveryState();
  for (const seq of seqs) {
    state.track(seq, state.nextDeliverySeq++, 0, 0);
    state.nextStreamSeq = seq + 1;
  }
  return state;
}

const floor = (state: DeliveryState) => [state.ackFloor.stream, state.ackFloor.consumer];

it('rises past each acked run to just below the oldest pending delivery', () => {
  const state = delivered([1, 2, 3, 4, 5, 100, 101]);
  expect(state.ackOne(2)).toBe(true);
  expect(floor(state)).toEqual([0, 0]);
  expect(state.ackOne(1)).toBe(true);
  expect(floor(state)).toEqual([2, 2]);
  expect(state.ackOne(2)).toBe(false);
  for (const seq of [4, 3]) state.ackOne(seq);
  expect(floor(state)).toEqual([4, 4]);
  // the oldest left is 95 sequences on, beyond what the floor looks up one by one
  state.ackOne(5);
  expect(floor(state)).toEqual([99, 5]);
  state.ackOne(101);
  expect(floor(state)).toEqual([99, 5]);
  state.ackOne(100);
  expect(floor(state)).toEqual([101, 7]);
});
