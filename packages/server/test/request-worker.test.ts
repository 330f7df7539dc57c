import { describe, expect, it } from 'vitest';
import { RequestWorker } from '../src/request-worker.js';

const doubler = `
const { parentPort } = require('node:worker_threads');
parentPort.on('message', ({ id, n }) => parentPort.postMessage({ id, answer: n * 2 }));
`;

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('RequestWorker', () => {
  it('ends its thread once idle for its time, and starts another for the next request', async () => {
    const worker = new RequestWorker<{ n: number }, number>(() => doubler, -1, 100);
    expect(worker.started).toBe(false);
    expect(await worker.request({ n: 2 })).toBe(4);
    expect(worker.started).toBe(true);
    await pause(50);
    expect(worker.started).toBe(true);
    await pause(250);
    expect(worker.started).toBe(false);
    expect(await worker.request({ n: 5 })).toBe(10);
    expect(worker.started).toBe(true);
  });

  it('keeps its thread while requests keep coming, each one putting the end off', async () => {
    const worker = new RequestWorker<{ n: number }, number>(() => doubler, -1, 150);
    for (let n = 0; n < 6; n++) {
      expect(await worker.request({ n })).toBe(2 * n);
      await pause(60);
      expect(worker.started).toBe(true);
    }
  });
});
