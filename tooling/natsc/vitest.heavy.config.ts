import { heavyProject } from '@slipstream/vitest-config';

export default heavyProject(import.meta.dirname);
