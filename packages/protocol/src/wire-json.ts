// Checked JSON for the INFO and CONNECT objects: Go's decoding rules without a schema library.

export type WireJsonErrorCode =
  /** The text is not JSON. */
  | 'INVALID_JSON'
  /** The JSON is not an object. */
  | 'NOT_AN_OBJECT'
  /** A field every server sends is absent. */
  | 'MISSING_FIELD'
  /** A known field has the wrong JSON type. */
  | 'INVALID_FIELD';

/** Why the JSON of an INFO or CONNECT could not be used. */
export class WireJsonError extends Error {
  constructor(
    readonly code: WireJsonErrorCode,
    message: string,
    /** The offending field, for MISSING_FIELD and INVALID_FIELD. */
    readonly field?: string,
  ) {
    super(message);
    this.name = 'WireJsonError';
  }
}

/** Outcome of a parse: the typed value or the reason it was refused. Never thrown. */
export type ParseResult<T> = { ok: true; value: T } | { ok: false; error: WireJsonError };

/** JSON type a known field must have. */
export type FieldKind = 'string' | 'boolean' | 'integer' | 'number' | 'string[]' | 'permission';

function hasKind(value: unknown, kind: FieldKind): boolean {
  switch (kind) {
    case 'string':
      return typeof value === 'string';
    case 'boolean':
      return typeof value === 'boolean';
    case 'integer':
      return Number.isInteger(value);
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'string[]':
      return Array.isArray(value) && value.every((v) => typeof v === 'string');
    case 'permission':
      return (
        typeof value === 'object' &&
        value !== null &&
        !Array.isArray(value) &&
        ['allow', 'deny'].every((k) => {
          const list = (value as Record<string, unknown>)[k];
          return list === undefined || list === null || hasKind(list, 'string[]');
        })
      );
  }
}

/**
 * Parses `json` and checks every known field's type (shared by INFO and CONNECT parsing).
 * A `null` field counts as absent and is removed, as Go's encoding/json ignores it.
 * Unknown fields are kept untouched.
 */
export function parseWireJson<T>(
  json: string,
  fields: Record<keyof T, FieldKind>,
  required: readonly (keyof T & string)[],
): ParseResult<T> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch (cause) {
    const detail = cause instanceof Error ? cause.message : String(cause);
    return { ok: false, error: new WireJsonError('INVALID_JSON', `invalid JSON: ${detail}`) };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    return { ok: false, error: new WireJsonError('NOT_AN_OBJECT', 'expected a JSON object') };
  }
  const record = parsed as Record<string, unknown>;
  for (const field of Object.keys(fields) as (keyof T & string)[]) {
    const value = record[field];
    if (value === null) delete record[field];
    else if (value !== undefined && !hasKind(value, fields[field])) {
      const message = `field "${field}" must be of type ${fields[field]}`;
      return { ok: false, error: new WireJsonError('INVALID_FIELD', message, field) };
    }
  }
  for (const field of required) {
    if (record[field] === undefined) {
      const message = `field "${field}" is missing`;
      return { ok: false, error: new WireJsonError('MISSING_FIELD', message, field) };
    }
  }
  return { ok: true, value: record as T };
}
