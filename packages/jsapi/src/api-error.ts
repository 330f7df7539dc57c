import * as z from 'zod';
import { jsErrors } from './error-catalog.js';

/** The error object inside any failed JetStream API response (and inside a failed PubAck). */
export const apiErrorSchema = z.looseObject({
  /** HTTP-like status: 400, 404, 500, 503, ... */
  code: z.number().int(),
  /** JetStream's own error number (10000-10999), absent on a few legacy errors. */
  err_code: z.number().int().nonnegative().optional(),
  description: z.string().optional(),
});
export type ApiErrorObject = z.infer<typeof apiErrorSchema>;

/** One entry of the catalog: the Go constant name, codes and the description template. */
export type JsErrorEntry = (typeof jsErrors)[keyof typeof jsErrors];
export type JsErrorName = keyof typeof jsErrors;

/** The `{placeholder}` names in a description template. */
export type Placeholders<Text extends string> = Text extends `${string}{${infer Name}}${infer Rest}`
  ? Name | Placeholders<Rest>
  : never;

/** Values for the placeholders of an entry; an entry without placeholders takes none. */
export type PlaceholderValues<E extends JsErrorEntry> = [Placeholders<E['description']>] extends [
  never,
]
  ? Record<string, never>
  : Record<Placeholders<E['description']>, string | number>;

const byErrCode = new Map<number, JsErrorEntry>(
  Object.values(jsErrors).map((entry) => [entry.err_code, entry]),
);

/** The catalog entry for an err_code, or undefined for a code this catalog does not know. */
export function jsErrorByCode(errCode: number): JsErrorEntry | undefined {
  return byErrCode.get(errCode);
}

/** Fills the `{placeholders}` of an entry's description, as nats-server does. */
export function formatErrorDescription<E extends JsErrorEntry>(
  entry: E,
  values?: PlaceholderValues<E>,
): string {
  const given = (values ?? {}) as Record<string, string | number>;
  return entry.description.replace(/\{(\w+)\}/g, (whole, name: string) =>
    name in given ? String(given[name]) : whole,
  );
}

/**
 * A JetStream API error as a value with a code: thrown or returned by the client, encoded by
 * the server. `entry` is the catalog entry when the err_code is known.
 */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  readonly code: number;
  readonly errCode: number;
  readonly description: string;
  readonly entry: JsErrorEntry | undefined;

  constructor(error: ApiErrorObject, options?: { cause?: unknown }) {
    super(error.description ?? `JetStream API error ${error.code}`, options);
    this.code = error.code;
    this.errCode = error.err_code ?? 0;
    this.description = error.description ?? '';
    this.entry = error.err_code === undefined ? undefined : jsErrorByCode(error.err_code);
  }

  /** An error built from a catalog entry, with its placeholders filled. */
  static of<E extends JsErrorEntry>(entry: E, values?: PlaceholderValues<E>): ApiError {
    return new ApiError({
      code: entry.code,
      err_code: entry.err_code,
      description: formatErrorDescription(entry, values),
    });
  }

  /** True when this error is the given catalog entry (compares err_code). */
  is(entry: JsErrorEntry): boolean {
    return this.errCode === entry.err_code;
  }

  /** The wire form: `{code, err_code, description}`. */
  toJSON(): ApiErrorObject {
    return { code: this.code, err_code: this.errCode, description: this.description };
  }
}
