import { TestRunner } from 'vitest';

// The name of the error @slipstream/test-servers throws (outside CI) when a test needs a program
// the OS has not installed, such as nats-server or Chromium. Matched by name: the error class
// lives in another package, and vitest hands the runner serialized errors.
const missingComponent = 'MissingSystemComponentError';

/**
 * Vitest's own runner, except that a test or suite that threw MissingSystemComponentError is
 * reported as skipped, with the error's message (what to install) as the reason. Vitest can only
 * skip from inside a test (`context.skip()`), not from the beforeAll that starts a server.
 */
export default class SkippingRunner extends TestRunner {
  onAfterRunTask(test) {
    skipIfMissingComponent(test);
    return super.onAfterRunTask(test);
  }

  async onAfterRunSuite(suite) {
    skipIfMissingComponent(suite);
    return super.onAfterRunSuite(suite);
  }
}

// Whatever else failed in that task (an afterAll stopping a server that never started) follows
// from the missing component, so its errors go with it.
function skipIfMissingComponent(task) {
  const missing = task.result?.errors?.find((error) => error?.name === missingComponent);
  if (!missing) return;
  task.mode = 'skip';
  task.result = { ...task.result, state: 'skip', note: missing.message, errors: undefined };
}
