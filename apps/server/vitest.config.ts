import { packageProject } from '@slipstream/vitest-config';

// Named after the package: the folder name "server" is already the library's project name.
export default packageProject(import.meta.dirname, { name: 'slipstream-server' });
