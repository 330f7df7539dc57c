/** The CONNECT fields the server acts on (nats-server ClientOpts); others are ignored. */
export interface ConnectFields {
  verbose?: boolean;
  pedantic?: boolean;
  echo?: boolean;
  headers?: boolean;
  no_responders?: boolean;
  protocol?: number;
  name?: string;
  lang?: string;
  version?: string;
  user?: string;
  pass?: string;
  auth_token?: string;
  nkey?: string;
  sig?: string;
  jwt?: string;
}

const BOOLEAN_FIELDS = ['verbose', 'pedantic', 'echo', 'headers', 'no_responders'] as const;
const STRING_FIELDS = [
  ...['name', 'lang', 'version'],
  ...['user', 'pass', 'auth_token', 'nkey', 'sig', 'jwt'],
] as const;

/**
 * CONNECT JSON as nats-server's json.Unmarshal would take it: an object (or `null`, which changes
 * nothing) whose known fields have the right types. Anything else is undefined (close the connection).
 */
export function parseConnect(json: string): ConnectFields | undefined {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return undefined;
  }
  if (value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) return undefined;
  const fields = value as Record<string, unknown>;
  for (const key of BOOLEAN_FIELDS) {
    if (fields[key] != null && typeof fields[key] !== 'boolean') return undefined;
  }
  for (const key of STRING_FIELDS) {
    if (fields[key] != null && typeof fields[key] !== 'string') return undefined;
  }
  // Go refuses to unmarshal 1.5 into an int just as it refuses "1".
  if (fields.protocol != null && !Number.isInteger(fields.protocol)) return undefined;
  const connect: ConnectFields = {};
  for (const [key, field] of Object.entries(fields)) {
    if (field !== null) (connect as Record<string, unknown>)[key] = field;
  }
  return connect;
}
