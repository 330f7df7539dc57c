import { packageProject } from '@slipstream/vitest-config';

export default packageProject(import.meta.dirname);
