import { packageProject } from '@slipstream/vitest-config';

// The tests run the built bin against servers they start; each spawns processes, so give them time.
export default packageProject(import.meta.dirname);
