/** The error `run` throws, which must be a `type`: another error, or none, fails the test. */
export function thrown<E extends Error>(
  type: abstract new (...args: never[]) => E,
  run: () => unknown,
): E {
  try {
    run();
  } catch (error) {
    if (error instanceof type) return error;
    throw error;
  }
  throw new Error(`expected a ${type.name}`);
}
