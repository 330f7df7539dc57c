/**
 * The consumer's redelivery timer: deadlines scheduled in due order and out of it fire once
 * due, and a consume acking nearly everything (the timer then rebuilds itself from what is
 * still pending) still redelivers what was not acked, at its time; a deadline further off than
 * one setTimeout can wait is waited for without a busy timer.
 */
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { RedeliveryTimer } from '../src/jetstream/consumer/redelivery.js';

let fired: number[];
let pending: Map<number, { due: number }>;
let timer: RedeliveryTimer;

beforeEach(() => {
  vi.useFakeTimers({ now: 1_000_000 });
  fired = [];
  pending = new Map();
  timer = new RedeliveryTimer(
    (seqs) => fired.push(...seqs),
    () => pending,
  );
});

afterEach(() => {
  timer.clear();
  vi.useRealTimers();
});

function schedule(seq: number, inMs: number): void {
  const due = Date.now() + inMs;
  pending.set(seq, { due });
  timer.schedule(seq, due);
}

it('fires each deadline once it is due, in order or not', () => {
  schedule(1, 100);
  schedule(2, 300);
  schedule(3, 200); // earlier than the last one scheduled: a backoff step, a NAK delay
  schedule(4, 50);
  vi.advanceTimersByTime(60);
  expect(fired).toEqual([4]);
  vi.advanceTimersByTime(50);
  expect(fired).toEqual([4, 1]);
  vi.advanceTimersByTime(100);
  expect(fired).toEqual([4, 1, 3]);
  vi.advanceTimersByTime(100);
  expect(fired).toEqual([4, 1, 3, 2]);
  vi.advanceTimersByTime(10_000);
  expect(fired).toEqual([4, 1, 3, 2]);
});

it('redelivers the unacked few of a long consume acking the rest, each at its time', () => {
  const unacked = new Set<number>();
  for (let seq = 1; seq <= 20_000; seq++) {
    schedule(seq, 30_000);
    if (seq % 997 === 0) {
      unacked.add(seq);
      // and one of them is pushed back (+WPI), out of order after later deliveries
      if (seq === 997 * 5) schedule(seq, 60_000);
    } else {
      pending.delete(seq);
    }
    vi.advanceTimersByTime(1);
  }
  vi.advanceTimersByTime(30_000);
  const live = (seqs: number[]) =>
    seqs.filter((seq) => (pending.get(seq)?.due ?? Number.POSITIVE_INFINITY) <= Date.now());
  // every unacked one due by now came; stale deadlines may come too, the consumer skips them
  expect(new Set(live(fired))).toEqual(new Set([...unacked].filter((seq) => seq !== 997 * 5)));
  vi.advanceTimersByTime(40_000);
  expect(new Set(live(fired))).toEqual(unacked);
});

it('waits for a deadline beyond what one setTimeout can (about 24.8 days) without spinning', () => {
  const armed = vi.spyOn(globalThis, 'setTimeout');
  const days = (n: number) => n * 24 * 3600 * 1000;
  schedule(1, days(30)); // a long NAK delay or ack_wait
  // Node runs a longer setTimeout after 1 ms: re-armed every millisecond, an idle consumer
  // with such a deadline kept a core busy
  vi.advanceTimersByTime(1000);
  expect(armed).toHaveBeenCalledTimes(1);
  vi.advanceTimersByTime(days(30) - 1000 - 1);
  expect(fired).toEqual([]);
  vi.advanceTimersByTime(1);
  expect(fired).toEqual([1]);
});
