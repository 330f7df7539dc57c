/** Go's short escapes, which `%q` uses before any `\x`. */
const SHORT_ESCAPES: Readonly<Record<string, string>> = {
  '\x07': '\\a',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\v': '\\v',
  '"': '\\"',
  '\\': '\\\\',
};

/** The lone surrogates that stand for the bytes of invalid UTF-8 (see @slipstream/protocol utf8.ts). */
const RAW_BYTE_FIRST = 0xdc80;
const RAW_BYTE_LAST = 0xdcff;

const hex2 = (n: number) => n.toString(16).padStart(2, '0');

/**
 * A subject as Go's `%q` prints it, which nats-server uses in its permission errors: in double
 * quotes, `"` and `\` escaped, control characters as `\n` or `\xNN`, a byte of invalid UTF-8 as
 * `\xNN`, C1 controls as `\u00NN`; anything else as it is.
 */
export function goQuote(text: string): string {
  let quoted = '"';
  for (const char of text) {
    const code = char.codePointAt(0)!;
    const short = SHORT_ESCAPES[char];
    if (short !== undefined) quoted += short;
    else if (code >= RAW_BYTE_FIRST && code <= RAW_BYTE_LAST) quoted += `\\x${hex2(code - 0xdc00)}`;
    else if (code < 0x20 || code === 0x7f) quoted += `\\x${hex2(code)}`;
    else if (code >= 0x80 && code < 0xa0) quoted += `\\u00${hex2(code)}`;
    else quoted += char;
  }
  return `${quoted}"`;
}
