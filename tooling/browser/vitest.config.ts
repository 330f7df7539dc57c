import { packageProject } from '@slipstream/vitest-config';

export default packageProject(import.meta.dirname, { testTimeout: 60_000, hookTimeout: 120_000 });
