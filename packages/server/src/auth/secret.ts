import { timingSafeEqual } from 'node:crypto';
import { bcryptWorker } from './bcrypt-worker.js';

/**
 * Whether a configured password or token is a bcrypt hash, by nats-server's rule (`$2`, an
 * optional minor letter, a two-digit cost). Such a value is checked with bcrypt, never compared
 * as text, or the hash itself would be the password.
 */
export function isBcryptHash(value: string): boolean {
  return /^\$2[abxy]?\$\d{2}\$/.test(value);
}

/**
 * Whether the secret a client sent matches the configured one. A plain secret is compared in
 * constant time and answers at once; a bcrypt hash is checked on a worker thread, so a flood of
 * logins cannot stall other clients.
 */
export function secretMatches(
  expected: string,
  given: string | undefined,
): boolean | Promise<boolean> {
  if (isBcryptHash(expected)) {
    return bcryptWorker.compare(given ?? '', expected);
  }
  return sameText(expected, given ?? '');
}

/** Constant-time equality: a wrong guess takes as long whatever its length or first wrong byte. */
export function sameText(expected: string, given: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  // timingSafeEqual needs equal lengths; compare the expected value with itself to spend the same time.
  return a.length === b.length ? timingSafeEqual(a, b) : !timingSafeEqual(b, b);
}
