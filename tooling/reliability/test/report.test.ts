import { describe, expect, it } from 'vitest';
import { formatDuration, parseDuration } from '../src/duration.js';
import { allHold, renderReport } from '../src/report.js';

describe('the campaign budget', () => {
  it('reads Go-style durations', () => {
    expect(parseDuration('90s')).toBe(90_000);
    expect(parseDuration('10m')).toBe(600_000);
    expect(parseDuration('1h30m')).toBe(5_400_000);
    expect(formatDuration(5_400_000)).toBe('1h30m');
  });

  it('refuses what is not a duration, saying how to write one', () => {
    expect(() => parseDuration('10')).toThrow(/write it like 90s, 10m or 1h30m/);
    expect(() => parseDuration('10m junk')).toThrow(/not a duration/);
  });
});

describe('docs/reliability.md', () => {
  const sections = [
    {
      title: 'Power loss',
      result: {
        figures: [
          {
            check: 'acknowledged messages lost',
            trials: '30 cycles',
            ours: '0',
            reference: '12',
            holds: true,
          },
          {
            check: 'streams that open',
            trials: '30 cycles',
            ours: '2 of 3\nsee below',
            holds: false,
          },
        ],
        details: 'How it was measured.',
      },
    },
  ];

  it('puts every figure in one table, nats-server beside ours, and marks a broken promise', () => {
    const text = renderReport({
      command: 'node tooling/reliability/dist/main.js --budget 10m',
      date: new Date('2026-01-01T00:00:00Z'),
      machine: 'test machine',
      budget: '10m',
      elapsed: '9m',
      sections,
      pending: [{ title: 'Hostile input', what: 'fuzzing.' }],
    });
    expect(text).toContain('| Power loss | acknowledged messages lost | 30 cycles | 0 | 12 |');
    expect(text).toContain(
      '| Power loss | streams that open | 30 cycles | 2 of 3 see below ✗ | — |',
    );
    expect(text).toContain('## Power loss\n\nHow it was measured.');
    expect(text).toContain('## Hostile input\n\nNot measured yet: fuzzing.');
    expect(allHold(sections)).toBe(false);
  });
});
