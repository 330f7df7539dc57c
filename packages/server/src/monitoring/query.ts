/**
 * Query parameters read the way nats-server's monitor reads them, failing with its exact texts
 * (answered as HTTP 400 text/plain).
 */
export class QueryError extends Error {
  override readonly name = 'QueryError';
}

export class Query {
  readonly #params: URLSearchParams;

  constructor(params: URLSearchParams) {
    this.#params = params;
  }

  string(name: string): string | undefined {
    const value = this.#params.get(name);
    return value === null || value === '' ? undefined : value;
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
