import { readFileSync } from 'node:fs';

/** This app's own version, from its package.json. */
export const appVersion: string = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    version: string;
  }
).version;
