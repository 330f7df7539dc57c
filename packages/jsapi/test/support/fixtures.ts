import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Where tooling/jsapi-fixtures writes its recordings. */
export const fixturesDir = join(import.meta.dirname, '..', 'fixtures');

/** Reads one recorded JSON file, by its path under test/fixtures. */
export const readFixture = <T>(...path: string[]): T =>
  JSON.parse(readFileSync(join(fixturesDir, ...path), 'utf8')) as T;

/** The `$JS.API` calls the official nats.js KV and object store clients made (audit advisories). */
export interface OfficialAudit {
  subject: string;
  request?: string;
  response: string;
}
export const officialAudits = () => readFixture<OfficialAudit[]>('official', 'api-audit.json');
