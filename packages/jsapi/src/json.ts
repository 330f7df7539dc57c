/**
 * JSON as nats-server's Go encoder writes it: `<`, `>`, `&`, U+2028 and U+2029 inside strings
 * are escaped as \u003c, \u003e, \u0026, \u2028, \u2029. Those characters can only occur inside
 * strings in JSON text, so replacing them after JSON.stringify is exact.
 */
export function encodeGoJson(value: unknown): string {
  return JSON.stringify(value).replace(
    /[<>&\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
