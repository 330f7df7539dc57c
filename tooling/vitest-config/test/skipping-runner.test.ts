import { join } from 'node:path';
import { hideVariable } from '@slipstream/test-servers';
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

// The runner is tested on a machine made to lack every system component, and on one made to have
// them all, whatever this machine has installed.
const noneInstalled = { [hideVariable]: 'nats-server,chromium,strace,tmux,fuse' };
const allInstalled = {
  // runs as nats-server would for startNatsServer
  NATS_SERVER_BIN: join(import.meta.dirname, 'fixtures/bin/stand-in-nats-server.mjs'),
  // never run by the fixture: the end-of-run notice only asks whether they are executable
  CHROMIUM_PATH: process.execPath,
  STRACE_BIN: process.execPath,
  TMUX_BIN: process.execPath,
  FUSERMOUNT_BIN: process.execPath,
};
const installCommand =
  'apt-get install nats-server chromium strace tmux fuse3 libfuse3-dev pkg-config';

describe('a test that needs a system component that is not installed', () => {
  it('is skipped, and the run passes and ends with one line naming what to install', async () => {
    const result = await run('needs-nats-server.fixture.ts', noneInstalled);
    expect(result.exitCode, result.output).toBe(0);
    expect(result.report).toMatchObject({ success: true, numPassedTests: 1, numPendingTests: 2 });
    const notices = result.output.split('\n').filter((line) => line.includes('apt-get install'));
    expect(notices).toEqual([
      `nats-server, chromium, strace, tmux and fuse are not installed, so the tests that need them were skipped; to run them: ${installCommand}`,
    ]);
  });

  it('fails under CI=true, naming the component', async () => {
    const result = await run('needs-nats-server.fixture.ts', { ...noneInstalled, CI: 'true' });
    expect(result.exitCode).toBe(1);
    expect(result.report).toMatchObject({ success: false, numPassedTests: 1, numPendingTests: 1 });
    expect(result.output).toContain(
      `nats-server is not installed (hidden by ${hideVariable}), and under CI every test must run: ${installCommand}`,
    );
  });

  it('names the override that points at no executable', async () => {
    const result = await run('needs-nats-server.fixture.ts', {
      ...allInstalled,
      NATS_SERVER_BIN: '/nonexistent/nats-server',
      CI: 'true',
    });
    expect(result.exitCode).toBe(1);
    expect(result.output).toContain(
      `nats-server is not installed (NATS_SERVER_BIN=/nonexistent/nats-server is not executable), and under CI every test must run: ${installCommand}`,
    );
  });

  it('runs when the component is installed', async () => {
    const result = await run('needs-nats-server.fixture.ts', allInstalled);
    expect(result.exitCode, result.output).toBe(0);
    expect(result.report).toMatchObject({ success: true, numPassedTests: 3, numPendingTests: 0 });
    expect(result.output).not.toContain('apt-get install');
  });
});
