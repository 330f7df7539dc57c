/**
 * Fills the `{name}` and `{name...}` placeholders of a subject pattern (the API operation and
 * event tables both use this notation). A missing or empty value is a TypeError naming `caller`,
 * since an empty token would make an invalid subject.
 */
export function fillSubjectPattern(
  pattern: string,
  params: Readonly<Record<string, string | undefined>>,
  caller: string,
): string {
  return pattern.replace(/\{(\w+)(?:\.\.\.)?\}/g, (_, name: string) => {
    const value = params[name];
    if (!value) throw new TypeError(`${caller}: missing parameter "${name}"`);
    return value;
  });
}
