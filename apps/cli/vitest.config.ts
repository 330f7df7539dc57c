import { packageProject } from '@slipstream/vitest-config';

// A test here runs slip a dozen times as a process of its own (about a second each on a loaded
// 2-core machine, most of it Node starting), hence more time than the shared 30 s.
export default packageProject(import.meta.dirname, { testTimeout: 90_000 });
