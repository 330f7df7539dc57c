/**
 * Asks at a terminal for a typed answer (Enter takes `fallback`), checked by `parse` as the
 * matching flag would be, and re-asked until it is valid.
 */
export async function askNumber(
  message: string,
  fallback: string,
  parse: (text: string) => number,
): Promise<number> {
  const { input } = await import('@inquirer/prompts');
  const answer = await input({
    message,
    default: fallback,
    validate: (text) => validates(() => parse(text)),
  });
  return parse(answer);
}

/** True when `check` accepts an answer, else its error message (shown under the prompt). */
export function validates(check: () => unknown): true | string {
  try {
    check();
    return true;
  } catch (error) {
    return (error as Error).message;
  }
}
