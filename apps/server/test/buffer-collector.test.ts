import { constants, type PerformanceEntry, PerformanceObserver } from 'node:perf_hooks';
import { describe, expect, it, vi } from 'vitest';
import { bufferCollector } from '../src/buffer-collector.js';

const MiB = 1024 * 1024;

/** The minor collections that started while `run` ran. */
async function minorCollectionsDuring(run: () => void): Promise<number> {
  const starts: number[] = [];
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = (entry as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind;
      if (kind === constants.NODE_PERFORMANCE_GC_MINOR) starts.push(entry.startTime);
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  const from = performance.now();
  run();
  const to = performance.now();
  // GC entries arrive after the collection, in a later task.
  await new Promise((resolve) => setTimeout(resolve, 50));
  observer.disconnect();
  return starts.filter((start) => start >= from && start <= to).length;
}

describe('bufferCollector', () => {
  it('runs a minor collection once buffer memory grew by 4 MiB, and frees dead buffers with it', async () => {
    const collect = bufferCollector();
    // Dead at once, as a socket's read buffer is once parsed; young, as a fresh read's is.
    for (let i = 0; i < 128; i++) Buffer.allocUnsafeSlow(64 * 1024);
    const before = process.memoryUsage().arrayBuffers;
    expect(await minorCollectionsDuring(collect)).toBe(1);
    // V8 may sweep the dead buffers' memory on another thread, shortly after the collection.
    await vi.waitFor(() =>
      expect(process.memoryUsage().arrayBuffers).toBeLessThan(before - 4 * MiB),
    );
  });

  it('does nothing while buffer memory has not grown', async () => {
    const collect = bufferCollector();
    expect(await minorCollectionsDuring(collect)).toBe(0);
    for (let i = 0; i < 16; i++) Buffer.allocUnsafeSlow(64 * 1024);
    expect(await minorCollectionsDuring(collect)).toBe(0);
  });
});
