/** A mistake in what was typed (a bad flag value, a missing argument): reported without a trace. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** The name of the `kind` ("stream", "consumer") to create, needed when there is nobody to ask. */
export function requireName(name: string | undefined, kind: string): string {
  if (!name) throw new UsageError(`a ${kind} name is needed (or run at a terminal to be asked)`);
  return name;
}
