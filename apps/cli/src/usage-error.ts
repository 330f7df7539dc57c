/** A mistake in what was typed (a bad flag value, a missing argument): reported without a trace. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}
