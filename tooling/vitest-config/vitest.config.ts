import { packageProject } from './index.js';

export default packageProject(import.meta.dirname);
