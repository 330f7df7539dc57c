/**
 * Nanosecond wall-clock time for message timestamps. `Date.now()` has millisecond
 * resolution, so the wall clock is read once and advanced by the monotonic high-resolution
 * timer: timestamps have nanosecond resolution and never go backwards within a process
 * (finding a sequence by time relies on times rising with sequences).
 */
const wallAtStart = BigInt(Date.now()) * 1_000_000n;
const monotonicAtStart = process.hrtime.bigint();

export type Clock = () => bigint;

export const systemClock: Clock = () => wallAtStart + (process.hrtime.bigint() - monotonicAtStart);
