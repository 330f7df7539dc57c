import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import {
  cpuMeter,
  cpuSeconds,
  peakRssBytes,
  resetPeakRss,
  rssBytes,
} from '@slipstream/test-servers';
import { describe, expect, it } from 'vitest';
import { CapacityTable } from '../src/harness/capacity-table.js';
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
    table.add({ name: 'cpu', unit: 'µs', better: 'lower', target: 1.5, reference: 0, ours: 2 });
    table.note('a note');
    const lines = table.render().split('\n');
    expect(lines).toContain(
      '| rate (msgs/s, higher is better) | 100 | 200 | 2.00x | 1.80–2.40 | ≥ 1.5x | met |',
    );
    expect(lines).toContain(
      '| latency (µs, lower is better) | 100 | 130 | 1.30x |  | ≤ 1.2x | NOT met |',
    );
    expect(lines).toContain('| memory (MiB, lower is better) | 10.0 | n/a | n/a |  |  |  |');
    // A reference under one clock tick: no ratio, and no verdict on the target.
    expect(lines).toContain('| cpu (µs, lower is better) | 0.00 | 2.00 | n/a |  | ≤ 1.5x |  |');
    expect(lines).toContain('- a note');
  });

  it('formats numbers to three significant digits with a suffix', () => {
    expect(formatNumber(1_234_567)).toBe('1.23M');
    expect(formatNumber(45_600)).toBe('45.6k');
    expect(formatNumber(0.0797)).toBe('0.0797');
  });
});

describe('CapacityTable', () => {
  const table = new CapacityTable('capacity', 'ref', 'ours');
  table.add({
    workload: 'publish',
    unit: 'msgs/s',
    main: { reference: 100, ours: 45, better: 'higher', ratioTarget: 1 },
    cpu: { reference: 1, ours: 3, better: 'lower', ratioTarget: 1.2 },
    peakRss: { reference: 10, ours: 20, better: 'lower', oursLimit: 50 },
  });
  table.add({
    workload: 'start',
    unit: 'ms',
    main: { reference: 40, ours: 100, better: 'lower', ratioTarget: 2.5, oursLimit: 150 },
  });

  it('puts the three figures of a workload on one line and names every target missed', () => {
    const lines = table.render().split('\n');
    expect(lines).toContain(
      '| publish | msgs/s | 100 | 45.0 | 0.45x | 1.00 | 3.00 | 3.00x | 10.0 | 20.0 | NOT met: msgs/s < 1x, server CPU > 1.2x |',
    );
    expect(lines).toContain('| start | ms | 40.0 | 100 | 2.50x |  |  |  |  |  | met |');
  });

  it('calls a regression only a floor missed by more than the slack', () => {
    expect(table.regressions(2)).toEqual(['publish, msgs/s: 0.45x, below 0.50x']);
    expect(table.regressions(3)).toEqual([]);
  });

  it('judges a regression from the baseline when the figure stood below its target', () => {
    const short = new CapacityTable('capacity', 'ref', 'ours');
    short.add({
      workload: 'publish',
      unit: 'msgs/s',
      main: { reference: 100, ours: 30, better: 'higher', ratioTarget: 1, baseline: 0.42 },
    });
    expect(short.regressions(2)).toEqual([]);
    expect(short.regressions(1)).toEqual(['publish, msgs/s: 0.30x, below 0.42x']);
  });

  it('shows n/a for a ratio over a reference of 0, and judges no target on it', () => {
    const tiny = new CapacityTable('capacity', 'ref', 'ours');
    tiny.add({
      workload: 'publish',
      unit: 'msgs/s',
      main: { reference: 100, ours: 100, better: 'higher', ratioTarget: 1 },
      cpu: { reference: 0, ours: 1, better: 'lower', ratioTarget: 1.2 },
    });
    expect(tiny.render().split('\n')).toContain(
      '| publish | msgs/s | 100 | 100 | 1.00x | 0.00 | 1.00 | n/a |  |  | met |',
    );
  });
});

describe('/proc readers', () => {
  it('meter the CPU of a section to well under a clock tick, threads started in it included', async () => {
    const meter = cpuMeter(process.pid);
    const before = process.cpuUsage();
    const spent = () => {
      const used = process.cpuUsage(before);
      return used.user + used.system;
    };
    while (spent() < 30_000);
    // 30 ms of CPU by getrusage's count, which /proc's ticks read as 20 or 30 ms.
    expect(meter.seconds()).toBeGreaterThanOrEqual(0.029);
    expect(meter.seconds()).toBeLessThan(1);
    const running = cpuMeter(process.pid);
    const worker = new Worker(
      `const { parentPort } = require('node:worker_threads');
       const before = process.cpuUsage();
       const spent = () => { const u = process.cpuUsage(before); return u.user + u.system; };
       while (spent() < 40000);
       parentPort.postMessage('spun');
       setTimeout(() => {}, 1000);`,
      { eval: true },
    );
    await once(worker, 'message');
    expect(running.seconds()).toBeGreaterThanOrEqual(0.039);
    await worker.terminate();
  });

  it('read CPU seconds and resident memory of a live process', () => {
    expect(cpuSeconds(process.pid)).toBeGreaterThan(0);
    const rss = rssBytes(process.pid);
    expect(rss).toBeGreaterThan(1024 * 1024);
    // The peak so far can only be at or above any earlier reading.
    expect(peakRssBytes(process.pid)).toBeGreaterThanOrEqual(rss);
  });

  it('set the peak RSS back to the current RSS', async () => {
    // A child whose peak stays 64 MiB above its RSS: a buffer touched, then freed.
    const child = spawn(
      process.execPath,
      [
        '--expose-gc',
        '-e',
        'let b = Buffer.alloc(64 << 20, 1); b = null; gc(); console.log("ready"); setInterval(() => {}, 1000);',
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    try {
      await once(child.stdout!, 'data');
      const pid = child.pid!;
      const MiB = 1024 * 1024;
      expect(peakRssBytes(pid) - rssBytes(pid)).toBeGreaterThan(32 * MiB);
      resetPeakRss(pid);
      expect(peakRssBytes(pid) - rssBytes(pid)).toBeLessThan(4 * MiB);
    } finally {
      child.kill();
    }
  });
});
