import { decodeUtf8 } from '@slipstream/protocol';
import type * as z from 'zod';
import { ApiError } from './api-error.js';
import { type ApiRequest, type ApiResponse, apiOperations } from './api-operations.js';
import { jsErrors } from './error-catalog.js';
import type { ApiOperationName } from './subjects.js';

/** One broken rule: where (`config.max_deliver`), which rule (zod's issue code) and why. */
export interface SchemaIssue {
  path: string;
  rule: string;
  message: string;
}

/** The outcome of decoding: the value, or an ApiError ready to send plus the broken rules. */
export type Decoded<T> =
  | { ok: true; value: T }
  | { ok: false; error: ApiError; issues: SchemaIssue[] };

const asText = (body: string | Uint8Array) => (typeof body === 'string' ? body : decodeUtf8(body));

/** zod's issues as field paths and rules, e.g. `config.retention: invalid_value (...)`. */
export function schemaIssues(error: z.ZodError): SchemaIssue[] {
  return error.issues.map((issue) => ({
    path: issue.path.length ? issue.path.map(String).join('.') : '(body)',
    rule: issue.code,
    message: issue.message,
  }));
}

/** Issues as one line: `path: message; path: message`. */
export const describeIssues = (issues: SchemaIssue[]) =>
  issues.map((i) => `${i.path}: ${i.message}`).join('; ');

function invalid<T>(issues: SchemaIssue[]): Decoded<T> {
  return {
    ok: false,
    error: ApiError.of(jsErrors.JSInvalidJSONErr, { err: describeIssues(issues) }),
    issues,
  };
}

type ParsedJson = { ok: true; json: unknown } | { ok: false; message: string };

function parseJson(text: string): ParsedJson {
  try {
    return { ok: true, json: JSON.parse(text) };
  } catch (cause) {
    return { ok: false, message: (cause as Error).message };
  }
}

function validate<S extends z.ZodType>(schema: S, parsed: ParsedJson): Decoded<z.output<S>> {
  if (!parsed.ok) return invalid([{ path: '(body)', rule: 'json', message: parsed.message }]);
  const result = schema.safeParse(parsed.json);
  return result.success ? { ok: true, value: result.data } : invalid(schemaIssues(result.error));
}

/** Parses JSON text with a schema; invalid JSON and schema failures both give 10025. */
export function decodeJson<S extends z.ZodType>(
  schema: S,
  body: string | Uint8Array,
): Decoded<z.output<S>> {
  return validate(schema, parseJson(asText(body)));
}

const isEmptyObject = (json: unknown) =>
  typeof json === 'object' &&
  json !== null &&
  !Array.isArray(json) &&
  Object.keys(json).length === 0;

/** nats-server's notion of an empty request: no bytes, or a JSON object without keys (`{}`). */
export function isEmptyRequest(text: string): boolean {
  const trimmed = text.trim();
  if (trimmed.length === 0) return true;
  if (!trimmed.startsWith('{')) return false;
  const parsed = parseJson(trimmed);
  return parsed.ok && isEmptyObject(parsed.json);
}

/**
 * Decodes an API request body by the rules of its operation, answering as nats-server does:
 * a body where none is allowed is 10038, a missing required body 10003, a bad one 10025.
 * Optional and absent bodies decode to undefined.
 */
export function decodeApiRequest<Op extends ApiOperationName>(
  operation: Op,
  body: string | Uint8Array,
): Decoded<ApiRequest<Op> | undefined> {
  const { payload, request } = apiOperations[operation] as {
    payload: string;
    request: z.ZodType | undefined;
  };
  if (payload === 'ignored') return { ok: true, value: undefined };
  const text = asText(body);
  // The body is parsed once, both to tell `{}` from a real request and to validate it.
  const parsed = text.trim().length === 0 ? undefined : parseJson(text);
  const empty = parsed === undefined || (parsed.ok && isEmptyObject(parsed.json));
  if (payload === 'none') {
    if (empty) return { ok: true, value: undefined };
    const error = ApiError.of(jsErrors.JSNotEmptyRequestErr);
    return {
      ok: false,
      error,
      issues: [{ path: '(body)', rule: 'empty', message: error.message }],
    };
  }
  if (payload === 'optional' && empty) return { ok: true, value: undefined };
  if (payload === 'required' && empty) {
    const error = ApiError.of(jsErrors.JSBadRequestErr);
    return {
      ok: false,
      error,
      issues: [{ path: '(body)', rule: 'required', message: 'a JSON body is required' }],
    };
  }
  if (!request) return { ok: true, value: undefined };
  // Go decodes `null` into a request struct as no fields at all: a request with defaults.
  const json = parsed?.ok && parsed.json === null ? { ok: true as const, json: {} } : parsed;
  return validate(request, json ?? parseJson(text)) as Decoded<ApiRequest<Op>>;
}

/**
 * Decodes an API response. A response carrying `error` decodes fine (it is a valid message);
 * use `responseError` to turn it into an ApiError.
 */
export function decodeApiResponse<Op extends ApiOperationName>(
  operation: Op,
  body: string | Uint8Array,
): Decoded<ApiResponse<Op>> {
  const schema = apiOperations[operation].response as z.ZodType | undefined;
  if (!schema) {
    throw new TypeError(`${operation} replies with messages, not a JSON response`);
  }
  return decodeJson(schema, body) as Decoded<ApiResponse<Op>>;
}

/** The ApiError of a response that carries one, or undefined for a success. */
export function responseError(response: unknown): ApiError | undefined {
  if (typeof response !== 'object' || response === null || !('error' in response)) return undefined;
  const error = (response as { error: unknown }).error;
  if (
    typeof error !== 'object' ||
    error === null ||
    typeof (error as { code?: unknown }).code !== 'number'
  ) {
    return undefined;
  }
  return new ApiError(error as { code: number; err_code?: number; description?: string });
}
