import { describe, expect, it } from 'vitest';
import { formatAckBody, parseAckBody, parseGoDuration } from '../src/index.js';

describe('ack bodies', () => {
  it('reads every verb nats-server knows', () => {
    expect(parseAckBody('')).toEqual({ kind: 'ack' });
    expect(parseAckBody('+ACK')).toEqual({ kind: 'ack' });
    expect(parseAckBody('+OK')).toEqual({ kind: 'ack' });
    expect(parseAckBody('+WPI')).toEqual({ kind: 'progress' });
    expect(parseAckBody('-NAK')).toEqual({ kind: 'nak' });
    expect(parseAckBody('-NAK {"delay":5000000000}')).toEqual({
      kind: 'nak',
      delayNanos: 5_000_000_000,
    });
    expect(parseAckBody('-NAK 5s')).toEqual({ kind: 'nak', delayNanos: 5_000_000_000 });
    expect(parseAckBody('+NXT')).toEqual({ kind: 'next' });
    expect(parseAckBody('+NXT {"batch":2}')).toEqual({ kind: 'next', request: { batch: 2 } });
    expect(parseAckBody('+TERM')).toEqual({ kind: 'term' });
    expect(parseAckBody('+TERM no longer wanted')).toEqual({
      kind: 'term',
      reason: 'no longer wanted',
    });
  });

  it('ignores what the server ignores', () => {
    for (const bad of [
      'ACK',
      '-NAK soon',
      '-NAK {"delay":1.5}',
      '-NAK {',
      '+NXT {"batch":"x"}',
      '+HUH',
    ]) {
      expect(parseAckBody(bad), bad).toBeUndefined();
    }
  });

  it('writes bodies that read back the same', () => {
    for (const body of [
      '+ACK',
      '+WPI',
      '-NAK',
      '-NAK {"delay":100}',
      '+NXT',
      '+NXT {"batch":3}',
      '+TERM',
      '+TERM why',
    ]) {
      expect(formatAckBody(parseAckBody(body)!)).toBe(body);
    }
  });
});

describe('Go durations', () => {
  it('parses like time.ParseDuration', () => {
    expect(parseGoDuration('0')).toBe(0);
    expect(parseGoDuration('1.5s')).toBe(1_500_000_000);
    expect(parseGoDuration('2m30s')).toBe(150_000_000_000);
    expect(parseGoDuration('1h')).toBe(3_600_000_000_000);
    expect(parseGoDuration('-100ms')).toBe(-100_000_000);
    expect(parseGoDuration('10us')).toBe(10_000);
    expect(parseGoDuration('10µs')).toBe(10_000);
    expect(parseGoDuration('.5ms')).toBe(500_000);
    for (const bad of ['', '5', 's', '1d', '1 s', '--1s'])
      expect(parseGoDuration(bad), bad).toBeUndefined();
  });
});
