import type { Section } from '../section.js';
import { damagedFiles } from './damaged-files.js';
import { diskFull } from './disk-full.js';
import { hostileInput } from './hostile-input.js';
import { manyConnections } from './many-connections.js';
import { powerLoss } from './power-loss.js';
import { slowConsumers } from './slow-consumers.js';
import { soak } from './soak.js';

/** Every section of the campaign, in the order they run and appear in the report. */
export const sections: readonly Section[] = [
  powerLoss,
  damagedFiles,
  diskFull,
  soak,
  slowConsumers,
  manyConnections,
  hostileInput,
];

/** Parts of the campaign without a section yet; the report names them as not measured. */
export const pendingSections: ReadonlyArray<{ title: string; what: string }> = [];
