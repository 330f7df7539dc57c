import { installCommand, missingSystemComponents, underCi } from './system-components.js';

/**
 * A vitest globalSetup (the root vitest.config.ts uses it): when nats-server or Chromium is not
 * installed, says so in one line once the run is over, next to vitest's own summary, with the
 * command that installs them. The tests that need them were skipped, or under CI failed.
 */
export default function noticeMissingSystemComponents(): (() => void) | undefined {
  const missing = missingSystemComponents();
  if (missing.length === 0) return undefined;
  const [names, verb, them] =
    missing.length === 1
      ? [missing[0], 'is', 'it']
      : [`${missing.slice(0, -1).join(', ')} and ${missing.at(-1)}`, 'are', 'them'];
  const outcome = underCi() ? 'FAILED (under CI every test must run)' : 'were skipped';
  const line = `${names} ${verb} not installed, so the tests that need ${them} ${outcome}; to run them: ${installCommand}`;
  return () => console.warn(`\n${line}\n`);
}
