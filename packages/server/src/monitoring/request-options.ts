/**
 * The JSON options of a system request, checked as nats-server 2.9.10's json.Unmarshal checks
 * them into its option structs: an option of the wrong JSON type fails the request (answered
 * 400) with Go's message; unknown options and nulls are ignored.
 */

export type RequestOptions = Readonly<Record<string, unknown>>;

/** The Go types of the options, as Go names them in its message. */
type GoType =
  | 'string'
  | 'bool'
  | 'int'
  | 'uint64'
  | '[]string'
  | 'server.SortOpt'
  | 'server.ConnState';

export interface OptionsStruct {
  readonly name: string;
  readonly fields: Readonly<Record<string, GoType>>;
}

/** nats-server's EventFilterOptions, part of every request's options. */
const FILTERS: Record<string, GoType> = {
  server_name: 'string',
  cluster: 'string',
  host: 'string',
  tags: '[]string',
  domain: 'string',
};

const struct = (name: string, fields: Record<string, GoType> = {}): OptionsStruct => ({
  name,
  fields: { ...fields, ...FILTERS },
});

const CONNZ = struct('ConnzEventOptions', {
  sort: 'server.SortOpt',
  auth: 'bool',
  subscriptions: 'bool',
  subscriptions_detail: 'bool',
  offset: 'int',
  limit: 'int',
  cid: 'uint64',
  mqtt_client: 'string',
  state: 'server.ConnState',
  user: 'string',
  acc: 'string',
  filter_subject: 'string',
});
const SUBSZ = struct('SubszEventOptions', {
  offset: 'int',
  limit: 'int',
  subscriptions: 'bool',
  account: 'string',
  test: 'string',
});
const LEAFZ = struct('LeafzEventOptions', { subscriptions: 'bool', account: 'string' });
const JSZ = struct('JszEventOptions', {
  account: 'string',
  accounts: 'bool',
  streams: 'bool',
  consumer: 'bool',
  config: 'bool',
  leader_only: 'bool',
  offset: 'int',
  limit: 'int',
});
const STATZ = struct('AccountStatzEventOptions', {
  accounts: '[]string',
  include_unused: 'bool',
});

/** The option structs of `$SYS.REQ.SERVER.<id|PING>.<X>`. */
export const SERVER_OPTIONS: Readonly<Record<string, OptionsStruct>> = {
  STATSZ: struct('StatszEventOptions'),
  VARZ: struct('VarzEventOptions'),
  CONNZ,
  SUBSZ,
  ROUTEZ: struct('RoutezEventOptions', { subscriptions: 'bool', subscriptions_detail: 'bool' }),
  GATEWAYZ: struct('GatewayzEventOptions', {
    name: 'string',
    accounts: 'bool',
    account_name: 'string',
  }),
  LEAFZ,
  ACCOUNTZ: struct('AccountzEventOptions', { account: 'string' }),
  JSZ,
  HEALTHZ: struct('HealthzEventOptions', { 'js-enabled-only': 'bool', 'js-server-only': 'bool' }),
};

/** The option structs of `$SYS.REQ.ACCOUNT.<account>.<X>` (and `.PING.STATZ`). */
export const ACCOUNT_OPTIONS: Readonly<Record<string, OptionsStruct>> = {
  SUBSZ,
  CONNZ,
  LEAFZ,
  JSZ,
  INFO: struct('AccInfoEventOptions'),
  STATZ,
};

/** `$SYS.REQ.ACCOUNT.<account>.CONNS` (nats-server's accNumConnsReq), which may name the account. */
export const CONNS_OPTIONS: OptionsStruct = { name: 'accNumConnsReq', fields: { acc: 'string' } };

/** The request body as `options`: none, or a JSON object; an Error (Go's text) otherwise. */
export function readOptions(options: OptionsStruct, payload: Uint8Array): RequestOptions | Error {
  if (payload.length === 0) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(payload).toString());
  } catch (error) {
    return error as Error;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    return new Error(
      `json: cannot unmarshal ${jsonType(parsed)} into Go value of type server.${options.name}`,
    );
  }
  for (const [key, value] of Object.entries(parsed)) {
    const type = options.fields[key];
    const wrong = type === undefined ? undefined : mismatch(value, type);
    if (wrong !== undefined) {
      const elementType = type === '[]string' && Array.isArray(value) ? 'string' : type;
      return new Error(
        `json: cannot unmarshal ${wrong} into Go struct field ${options.name}.${key} of type ${elementType}`,
      );
    }
  }
  return parsed as RequestOptions;
}

/** How Go names what `value` is when it does not fit `type`; undefined when it fits. */
function mismatch(value: unknown, type: GoType): string | undefined {
  if (value === null) return undefined;
  switch (type) {
    case 'bool':
      return typeof value === 'boolean' ? undefined : jsonType(value);
    case 'int':
    case 'uint64':
    case 'server.ConnState':
      if (typeof value !== 'number') return jsonType(value);
      if (!Number.isInteger(value) || (type === 'uint64' && value < 0)) return `number ${value}`;
      return undefined;
    case '[]string':
      if (!Array.isArray(value)) return jsonType(value);
      return value.map((element) => mismatch(element, 'string')).find((m) => m !== undefined);
    default:
      return typeof value === 'string' ? undefined : jsonType(value);
  }
}

function jsonType(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'boolean') return 'bool';
  return typeof value;
}
