import { describe, expect, it } from 'vitest';
import { goDuration, goJson, rfc3339, uptime } from '../src/monitoring/format.js';

describe('Go-compatible formatting', () => {
  it('prints durations like time.Duration.String', () => {
    expect(goDuration(0)).toBe('0s');
    expect(goDuration(0.000_5)).toBe('500ns');
    expect(goDuration(0.708)).toBe('708µs');
    expect(goDuration(500.589638)).toBe('500.589638ms');
    expect(goDuration(1_500)).toBe('1.5s');
    expect(goDuration(123_500)).toBe('2m3.5s');
    expect(goDuration(3_600_000)).toBe('1h0m0s');
  });

  it('prints uptimes like nats-server', () => {
    expect(uptime(999)).toBe('0s');
    expect(uptime(627_000)).toBe('10m27s');
    expect(uptime(3_603_000)).toBe('1h0m3s');
    expect(uptime(90_061_000)).toBe('1d1h1m1s');
    expect(uptime(366 * 86_400_000)).toBe('1y1d0h0m0s');
  });

  it('prints RFC 3339 UTC times with trimmed fractions', () => {
    expect(rfc3339(Date.UTC(2026, 10, 29, 7, 48, 28, 40))).toBe('2026-11-29T07:48:28.04Z');
    expect(rfc3339(Date.UTC(2026, 10, 29, 7, 48, 28, 0))).toBe('2026-11-29T07:48:28Z');
  });

  it('escapes <, > and & in JSON like Go', () => {
    expect(goJson({ s: 'a.> & <b>' }, false)).toBe('{"s":"a.\\u003e \\u0026 \\u003cb\\u003e"}');
    expect(goJson({ a: 1 })).toBe('{\n  "a": 1\n}');
  });
});
