/** A copy of `value` without its undefined fields, so settings compare and merge key by key. */
export function dropUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}
