import { cpuSeconds, peakRssBytes, rssBytes } from '@slipstream/test-servers';
import { describe, expect, it } from 'vitest';
import { alternateRounds, pick, type Sample } from '../src/harness/rounds.js';
import { median, percentile } from '../src/harness/stats.js';
import { formatNumber, RatioTable } from '../src/harness/table.js';

describe('stats', () => {
  it('takes the middle value, or the mean of the middle two', () => {
    expect(median([5, 1, 3])).toBe(3);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([])).toBeNaN();
  });

  it('gives nearest-rank percentiles that are real samples', () => {
    const values = Array.from({ length: 100 }, (_, i) => 100 - i);
    expect(percentile(values, 0.5)).toBe(50);
    expect(percentile(values, 0.99)).toBe(99);
    expect(percentile([7], 0.99)).toBe(7);
  });
});

describe('alternateRounds', () => {
  it('alternates reference and ours after one warm-up each, and reports medians and per-round ratios', async () => {
    const calls: string[] = [];
    const side = (name: string, values: number[]) => ({
      name,
      measure: async (): Promise<Sample> => {
        calls.push(name);
        return { rate: values[calls.filter((c) => c === name).length - 1] };
      },
    });
    const result = await alternateRounds(
      { rounds: 3, label: 'test', warmup: true },
      side('A', [0, 10, 30, 20]),
      side('B', [0, 20, 30, 80]),
    );
    expect(calls).toEqual(['A', 'B', 'A', 'B', 'A', 'B', 'A', 'B']);
    expect(result.reference.rate).toBe(20);
    expect(result.ours?.rate).toBe(30);
    expect(pick(result, 'rate')).toEqual({ reference: 20, ours: 30, roundRatios: [2, 1, 4] });
  });

  it('measures only the reference when our side is skipped', async () => {
    let runs = 0;
    const result = await alternateRounds(
      { rounds: 5, label: 'test' },
      { name: 'A', measure: async () => ({ rate: ++runs }) },
      { name: 'B', skipped: 'not built yet' },
    );
    expect(runs).toBe(5);
    expect(result.reference.rate).toBe(3);
    expect(result.ours).toBeUndefined();
  });
});

describe('RatioTable', () => {
  it('prints ratio ours/reference, the round range and whether the target is met in the right direction', () => {
    const table = new RatioTable('T', 'ref', 'ours');
    table.add({
      name: 'rate',
      unit: 'msgs/s',
      better: 'higher',
      target: 1.5,
      reference: 100,
      ours: 200,
      roundRatios: [1.8, 2.4],
    });
    table.add({
      name: 'latency',
      unit: 'µs',
      better: 'lower',
      target: 1.2,
      reference: 100,
      ours: 130,
    });
    table.add({ name: 'memory', unit: 'MiB', better: 'lower', reference: 10, ours: undefined });
    table.note('a note');
    const lines = table.render().split('\n');
    expect(lines).toContain(
      '| rate (msgs/s, higher is better) | 100 | 200 | 2.00x | 1.80–2.40 | ≥ 1.5x | met |',
    );
    expect(lines).toContain(
      '| latency (µs, lower is better) | 100 | 130 | 1.30x |  | ≤ 1.2x | NOT met |',
    );
    expect(lines).toContain('| memory (MiB, lower is better) | 10.0 | n/a | n/a |  |  |  |');
    expect(lines).toContain('- a note');
  });

  it('formats numbers to three significant digits with a suffix', () => {
    expect(formatNumber(1_234_567)).toBe('1.23M');
    expect(formatNumber(45_600)).toBe('45.6k');
    expect(formatNumber(0.0797)).toBe('0.0797');
  });
});

describe('/proc readers', () => {
  it('read CPU seconds and resident memory of a live process', () => {
    expect(cpuSeconds(process.pid)).toBeGreaterThan(0);
    const rss = rssBytes(process.pid);
    expect(rss).toBeGreaterThan(1024 * 1024);
    // The peak so far can only be at or above any earlier reading.
    expect(peakRssBytes(process.pid)).toBeGreaterThanOrEqual(rss);
  });
});
