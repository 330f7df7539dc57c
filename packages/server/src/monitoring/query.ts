import { decodeSubject } from '@slipstream/protocol';

/**
 * Query parameters read the way nats-server's monitor reads them, failing with its exact texts
 * (answered as HTTP 400 text/plain).
 */
export class QueryError extends Error {
  override readonly name = 'QueryError';
}

export class Query {
  readonly #params = new Map<string, string>();

  /**
   * Reads the query of a request target (`/subsz?subs=1&test=%FF.a`) as Go's url.ParseQuery:
   * `&`-separated pairs, `+` for a space, percent-escapes as bytes. A pair with a `;` or a bad
   * escape is skipped; the first value of a name counts. Bytes are kept exactly, invalid UTF-8
   * included (`decodeSubject`), so a `test` subject means the subject with those bytes.
   */
  constructor(target: string) {
    const start = target.indexOf('?');
    if (start < 0) return;
    for (const pair of target.slice(start + 1).split('&')) {
      if (pair === '' || pair.includes(';')) continue;
      const equals = pair.indexOf('=');
      const name = unescapeQuery(equals < 0 ? pair : pair.slice(0, equals));
      const value = unescapeQuery(equals < 0 ? '' : pair.slice(equals + 1));
      if (name === undefined || value === undefined || this.#params.has(name)) continue;
      this.#params.set(name, value);
    }
  }

  string(name: string): string | undefined {
    const value = this.#params.get(name);
    return value === undefined || value === '' ? undefined : value;
  }

  /** Go strconv.Atoi. */
  int(name: string, fallback: number): number {
    const value = this.string(name);
    if (value === undefined) return fallback;
    if (!/^[+-]?\d+$/.test(value)) {
      throw new QueryError(
        `Error decoding int for '${name}': strconv.Atoi: parsing ${JSON.stringify(value)}: invalid syntax`,
      );
    }
    return Number(value);
  }

  /** Go strconv.ParseUint (base 10). */
  uint(name: string): number | undefined {
    const value = this.string(name);
    if (value === undefined) return undefined;
    if (!/^\d+$/.test(value)) {
      throw new QueryError(
        `Error decoding uint64 for '${name}': strconv.ParseUint: parsing ${JSON.stringify(value)}: invalid syntax`,
      );
    }
    return Number(value);
  }

  /** Go strconv.ParseBool. */
  bool(name: string): boolean {
    const value = this.string(name);
    if (value === undefined) return false;
    if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(value)) return true;
    if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(value)) return false;
    throw new QueryError(
      `Error decoding boolean for '${name}': strconv.ParseBool: parsing ${JSON.stringify(value)}: invalid syntax`,
    );
  }

  /** `subs`-style flag that also accepts `detail`. */
  detail(name: string): 'none' | 'list' | 'detail' {
    if (this.string(name) === 'detail') return 'detail';
    return this.bool(name) ? 'list' : 'none';
  }
}

/**
 * One name or value of a query: `+` is a space, `%XX` a byte, any other character stands for
 * itself (its char code as a byte, as node:http hands out the raw request line). Undefined for a
 * `%` not followed by two hex digits, which Go refuses.
 */
function unescapeQuery(text: string): string | undefined {
  const bytes = new Uint8Array(text.length);
  let length = 0;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (char === '%') {
      const hex = text.slice(i + 1, i + 3);
      if (!/^[0-9a-fA-F]{2}$/.test(hex)) return undefined;
      bytes[length++] = Number.parseInt(hex, 16);
      i += 2;
    } else {
      bytes[length++] = char === '+' ? 0x20 : text.charCodeAt(i);
    }
  }
  return decodeSubject(bytes, 0, length);
}
