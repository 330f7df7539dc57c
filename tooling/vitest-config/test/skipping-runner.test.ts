import { requireSystemComponent } from '@slipstream/test-servers';
import { afterEach, describe, expect, it } from 'vitest';
import { type FixtureRun, runFixture } from './run-fixture.js';

const runs: FixtureRun[] = [];
afterEach(async () => {
  await Promise.all(runs.splice(0).map((run) => run.remove()));
});
const run = async (...args: Parameters<typeof runFixture>) => {
  const result = await runFixture(...args);
  runs.push(result);
  return result;
};

const noNatsServer = { NATS_SERVER_BIN: '/nonexistent/nats-server' };

describe('a test that needs a system component that is not installed', () => {
  it('is skipped, and the run passes and ends with one line naming what to install', async () => {
    const result = await run('needs-nats-server.fixture.ts', noNatsServer);
    expect(result.exitCode, result.output).toBe(0);
    expect(result.report).toMatchObject({ success: true, numPassedTests: 1, numPendingTests: 2 });
    const notices = result.output.split('\n').filter((line) => line.includes('apt-get install'));
    expect(notices).toEqual([
      'nats-server is not installed, so the tests that need it were skipped; to run them: apt-get install nats-server chromium strace',
    ]);
  });

  it('fails under CI=true, naming the component', async () => {
    const result = await run('needs-nats-server.fixture.ts', { ...noNatsServer, CI: 'true' });
    expect(result.exitCode).toBe(1);
    expect(result.report).toMatchObject({ success: false, numPassedTests: 1, numPendingTests: 1 });
    expect(result.output).toContain(
      'nats-server is not installed (NATS_SERVER_BIN=/nonexistent/nats-server is not executable), and under CI every test must run: apt-get install nats-server chromium strace',
    );
  });

  it('runs when the component is installed', async () => {
    requireSystemComponent('nats-server');
    const result = await run('needs-nats-server.fixture.ts');
    expect(result.exitCode, result.output).toBe(0);
    expect(result.report).toMatchObject({ success: true, numPassedTests: 3, numPendingTests: 0 });
    expect(result.output).not.toContain('apt-get install');
  });
});
