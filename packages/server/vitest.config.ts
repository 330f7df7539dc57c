import { packageProject } from '@slipstream/vitest-config';

// The dashboard is bundled once from its sources before the tests (test/dashboard/build-bundle.ts).
export default packageProject(import.meta.dirname, {
  globalSetup: ['test/dashboard/build-bundle.ts'],
});
