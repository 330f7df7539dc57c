// How the runner reads a nats.c test's output: the suite's steps print `#NN <step>: PASSED` or
// `FAILED` (coloured on Linux), the binary ends with ALL PASSED or *** TEST FAILED ***.
import { describe, expect, it } from 'vitest';
import { classify } from '../src/run-test.js';

const exited = (code: number) => ({ code, signal: null, timedOut: false });

describe('classify', () => {
  it('reads ALL PASSED with exit 0 as passed, through the colour codes', () => {
    const output =
      '\x1b[0;34m\n== Auth ==\n\x1b[0;0m#01 Connect: \x1b[0;32mPASSED\x1b[0;0m\nALL PASSED\n';
    expect(classify(output, exited(0))).toEqual({ outcome: 'passed' });
  });

  it('reads a step that skips as skipped', () => {
    const output =
      '== JetStreamX ==\n#01 Skipping since requires server version of at least 2.10.0, got nats-server: v2.9.10: PASSED\nALL PASSED\n';
    expect(classify(output, exited(0))).toEqual({ outcome: 'skipped' });
  });

  it("reads a test's own Skip steps as steps, not as the test skipping", () => {
    const output =
      '== JetStreamSubscribeIdleHeartbeat ==\n#01 Skip: PASSED\n#02 Skip again: PASSED\nALL PASSED\n';
    expect(classify(output, exited(0))).toEqual({ outcome: 'passed' });
  });

  it('quotes the first failed step and the error stack after it', () => {
    const output = [
      '== GetServers ==',
      '#01 Start cluster: PASSED',
      '#02 Get servers: FAILED',
      'Error: 5 - Not Found',
      'Stack: (library: 3.4.1)',
      '      natsConnection_GetServers()',
      '*** TEST FAILED ***',
    ].join('\n');
    expect(classify(output, exited(1))).toEqual({
      outcome: 'failed',
      failure:
        '#02 Get servers: FAILED | Error: 5 - Not Found | Stack: (library: 3.4.1) | natsConnection_GetServers()',
    });
  });

  it('says how a crashed or stuck binary ended, with its last lines', () => {
    const crashed = classify('== X ==\n#01 Connect: PASSED\nError: signal 11:\n', {
      code: null,
      signal: 'SIGSEGV',
      timedOut: false,
    });
    expect(crashed).toEqual({
      outcome: 'failed',
      failure: '(ended by SIGSEGV) == X == | #01 Connect: PASSED | Error: signal 11:',
    });
    const stuck = classify('== X ==\n#01 Wait for reconnect: ', {
      code: null,
      signal: 'SIGKILL',
      timedOut: true,
    });
    expect(stuck).toEqual({ outcome: 'timed out', failure: '== X == | #01 Wait for reconnect:' });
  });
});
