// vitest globalSetup: bundles the dashboard from its current sources once before the tests, so
// that they serve what the sources say, not a stale build.
// @ts-expect-error: a plain .mjs build script without types
import { buildDashboard } from '../../scripts/build-dashboard.mjs';

export default async function setup(): Promise<void> {
  await buildDashboard();
}
