import { describe, expect, it } from 'vitest';
import {
  compareTimestamps,
  formatTimestamp,
  millis,
  nanos,
  parseTimestamp,
  timestampFromDate,
  timestampFromEpochNanos,
  timestampToDate,
  timestampToEpochNanos,
  ZERO_TIME,
} from '../src/index.js';

describe('durations', () => {
  it('converts milliseconds and nanoseconds', () => {
    expect(nanos(30_000)).toBe(30_000_000_000);
    expect(nanos(0.5)).toBe(500_000);
    expect(millis(120_000_000_000)).toBe(120_000);
    expect(millis(1_500_000)).toBe(1.5);
  });
});

describe('RFC 3339 timestamps with nanoseconds', () => {
  it('keeps all nine fractional digits', () => {
    const ts = parseTimestamp('2026-11-29T06:26:17.644184051Z');
    expect(ts).toEqual({ seconds: Date.UTC(2026, 10, 29, 6, 26, 17) / 1000, nanos: 644_184_051 });
    expect(formatTimestamp(ts!)).toBe('2026-11-29T06:26:17.644184051Z');
  });

  it('formats like Go: trailing zeros trimmed, no fraction when zero', () => {
    expect(formatTimestamp(parseTimestamp('2026-11-29T06:26:17.64418405Z')!)).toBe(
      '2026-11-29T06:26:17.64418405Z',
    );
    expect(formatTimestamp(parseTimestamp('2026-11-29T06:26:17.500000000Z')!)).toBe(
      '2026-11-29T06:26:17.5Z',
    );
    expect(formatTimestamp(parseTimestamp('2026-11-29T06:26:17Z')!)).toBe('2026-11-29T06:26:17Z');
  });

  it("round-trips Go's zero time", () => {
    const zero = parseTimestamp(ZERO_TIME)!;
    expect(zero.seconds).toBe(-62_135_596_800);
    expect(formatTimestamp(zero)).toBe(ZERO_TIME);
  });

  it('applies offsets and normalises to UTC', () => {
    expect(formatTimestamp(parseTimestamp('2026-11-29T08:26:17.1+02:00')!)).toBe(
      '2026-11-29T06:26:17.1Z',
    );
    expect(formatTimestamp(parseTimestamp('2026-11-28T23:00:00-07:30')!)).toBe(
      '2026-11-29T06:30:00Z',
    );
  });

  it('rejects malformed text', () => {
    for (const bad of [
      '',
      '2026-11-29',
      '2026-13-01T00:00:00Z',
      '2026-11-29T06:26:17.1234567890Z',
      '2026-11-29 06:26:17Z',
    ]) {
      expect(parseTimestamp(bad), bad).toBeUndefined();
    }
  });

  it('converts to and from Date and epoch nanoseconds exactly', () => {
    const ts = parseTimestamp('2026-11-29T06:26:17.644184051Z')!;
    expect(timestampToDate(ts).toISOString()).toBe('2026-11-29T06:26:17.644Z');
    expect(timestampFromDate(new Date('2026-11-29T06:26:17.644Z'))).toEqual({
      seconds: ts.seconds,
      nanos: 644_000_000,
    });
    const ns = timestampToEpochNanos(ts);
    expect(ns).toBe(1_795_933_577_644_184_051n);
    expect(timestampFromEpochNanos(ns)).toEqual(ts);
    expect(timestampFromEpochNanos(-1n)).toEqual({ seconds: -1, nanos: 999_999_999 });
    expect(compareTimestamps(ts, { ...ts, nanos: ts.nanos + 1 })).toBeLessThan(0);
  });
});
