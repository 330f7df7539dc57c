/**
 * Seeded hostile JSON for the JetStream API and the KV and object store conventions: a valid
 * request for one `$JS.API` subject with one field (or the whole body) replaced by something
 * wrong: another type, an absurd number, deep nesting, a name that climbs out of a directory
 * (`../`), NUL and control bytes, a string of nearly 1 MiB. One seed gives one request.
 */
import { seeded } from '../damage/damage.js';

type Random = (n: number) => number;

/** Every name the fuzz makes carries this, so a file it created anywhere can be found. */
export const HOSTILE_MARK = 'zz-hostile';

/** The KV bucket and object store the fuzz writes into (created valid before it starts). */
export const FUZZ_BUCKET = 'FZKV';
export const FUZZ_OBJECTS = 'FZOBJ';

export type ApiCaseKind = 'jsapi' | 'kv' | 'object';

export interface ApiCase {
  readonly seed: number;
  readonly kind: ApiCaseKind;
  readonly subject: string;
  readonly body: Uint8Array;
  /** Headers for a KV or object store publish (KV-Operation, rollups, expectations). */
  readonly headers?: ReadonlyArray<readonly [string, string]>;
}

// Near max_payload (1 MiB) but under it, with room for the JSON around it.
const nearlyOneMiB = 'm'.repeat(1024 * 1024 - 4096);
const deepArray = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
const deepObject = `${'{"a":'.repeat(50_000)}1${'}'.repeat(50_000)}`;

/** Raw JSON text (so that also what JSON.stringify cannot write: 1e999, deep nesting). */
const hostileValues: ReadonlyArray<(r: Random) => string> = [
  () => '"../../zz-hostile"',
  () => `"../../../../../../tmp/${HOSTILE_MARK}-abs"`,
  () => `"/tmp/${HOSTILE_MARK}-root"`,
  () => `"${HOSTILE_MARK}\\u0000nul"`,
  () => `"${HOSTILE_MARK}\\u0001\\u001f\\u007f\\r\\n"`,
  () => `"${HOSTILE_MARK}/a/../../b"`,
  () => '1e999',
  () => '-1e999',
  () => '18446744073709551616',
  () => '-9223372036854775809',
  () => '9007199254740993',
  () => '-1',
  () => '0.5',
  () => 'true',
  () => 'null',
  () => '[]',
  () => '{}',
  () => '"x"',
  () => '[1,"a",{"b":null}]',
  () => `"${nearlyOneMiB}"`,
  (r) => (r(2) === 0 ? deepArray : deepObject).slice(0, 1 + r(2) * 1_000),
  (r) => (r(2) === 0 ? deepArray : deepObject),
];

/** Whole bodies that are wrong before any field is read. */
const hostileBodies: ReadonlyArray<(r: Random) => string | Uint8Array> = [
  () => '',
  () => 'null',
  () => '[]',
  () => '"a string"',
  () => '{"a":',
  () => deepArray,
  () => deepObject,
  () => new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d]),
  () => `{"name":"${nearlyOneMiB}"}`,
  (r) => {
    const bytes = new Uint8Array(1 + r(512));
    for (let i = 0; i < bytes.length; i++) bytes[i] = r(256);
    return bytes;
  },
];

/** Names for the subject's tokens: valid, then hostile but still one token. */
const tokens = [
  'FZ',
  'FZ2',
  `${HOSTILE_MARK}`,
  `${HOSTILE_MARK}%2e%2e%2f`,
  `${HOSTILE_MARK}/x`,
  `${HOSTILE_MARK}\\y`,
  `${HOSTILE_MARK}~`,
  `${HOSTILE_MARK}\u0001`,
  `${HOSTILE_MARK}${'n'.repeat(300)}`,
  // Two of these still fit a control line (4096 bytes): a longer subject is refused by any
  // NATS server before the API sees it, and the connection closed, as nats-server does.
  `${HOSTILE_MARK}${'n'.repeat(1_500)}`,
];

type Template = (name: string, consumer: string, r: Random) => { subject: string; body: unknown };

const streamConfig = (name: string, r: Random) => ({
  name,
  subjects: [`fz.${r(5)}.>`],
  storage: r(2) === 0 ? 'file' : 'memory',
  max_msgs: 1000,
  max_bytes: 1 << 20,
  max_age: 0,
  num_replicas: 1,
  retention: 'limits',
  discard: 'old',
  duplicate_window: 120_000_000_000,
  sources: r(4) === 0 ? [{ name: 'FZ' }] : undefined,
  mirror: r(8) === 0 ? { name: 'FZ2' } : undefined,
  placement: r(8) === 0 ? { cluster: 'c', tags: ['t'] } : undefined,
  republish: r(8) === 0 ? { src: '>', dest: 'fz.re.>' } : undefined,
});

const consumerConfig = (consumer: string, r: Random) => ({
  durable_name: r(2) === 0 ? consumer : undefined,
  name: consumer,
  ack_policy: 'explicit',
  deliver_policy: ['all', 'last', 'new', 'by_start_sequence'][r(4)],
  opt_start_seq: 1,
  filter_subject: 'fz.>',
  max_deliver: 5,
  backoff: r(4) === 0 ? [1_000_000_000] : undefined,
  ack_wait: 30_000_000_000,
  max_ack_pending: 100,
  deliver_subject: r(3) === 0 ? `fz.push.${r(9)}` : undefined,
});

const templates: readonly Template[] = [
  () => ({ subject: 'INFO', body: {} }),
  (n, _c, r) => ({ subject: `STREAM.CREATE.${n}`, body: streamConfig(n, r) }),
  (n, _c, r) => ({ subject: `STREAM.UPDATE.${n}`, body: streamConfig(n, r) }),
  (n) => ({
    subject: `STREAM.INFO.${n}`,
    body: { subjects_filter: '>', deleted_details: true, offset: 0 },
  }),
  () => ({ subject: 'STREAM.NAMES', body: { offset: 0, subject: 'fz.>' } }),
  () => ({ subject: 'STREAM.LIST', body: { offset: 0 } }),
  (n) => ({ subject: `STREAM.DELETE.${n}`, body: {} }),
  (n) => ({ subject: `STREAM.PURGE.${n}`, body: { filter: 'fz.>', seq: 2, keep: 1 } }),
  (n) => ({ subject: `STREAM.MSG.GET.${n}`, body: { seq: 1, last_by_subj: 'fz.1.a' } }),
  (n) => ({ subject: `STREAM.MSG.DELETE.${n}`, body: { seq: 1, no_erase: true } }),
  (n) => ({
    subject: `STREAM.SNAPSHOT.${n}`,
    body: { deliver_subject: 'fz.snap', chunk_size: 1024 },
  }),
  (n, _c, r) => ({
    subject: `STREAM.RESTORE.${n}`,
    body: { config: streamConfig(n, r), state: {} },
  }),
  (n) => ({ subject: `STREAM.LEADER.STEPDOWN.${n}`, body: {} }),
  (n) => ({ subject: `STREAM.PEER.REMOVE.${n}`, body: { peer: 'p' } }),
  (n, c, r) => ({
    subject: `CONSUMER.CREATE.${n}`,
    body: { stream_name: n, config: consumerConfig(c, r) },
  }),
  (n, c, r) => ({
    subject: `CONSUMER.CREATE.${n}.${c}`,
    body: { stream_name: n, config: consumerConfig(c, r) },
  }),
  (n, c, r) => ({
    subject: `CONSUMER.DURABLE.CREATE.${n}.${c}`,
    body: { stream_name: n, config: consumerConfig(c, r) },
  }),
  (n, c) => ({ subject: `CONSUMER.INFO.${n}.${c}`, body: {} }),
  (n, c) => ({ subject: `CONSUMER.DELETE.${n}.${c}`, body: {} }),
  (n) => ({ subject: `CONSUMER.NAMES.${n}`, body: { offset: 0 } }),
  (n) => ({ subject: `CONSUMER.LIST.${n}`, body: { offset: 0 } }),
];

const hostileHeaders: ReadonlyArray<readonly [string, string]> = [
  ['KV-Operation', 'PURGE'],
  ['KV-Operation', 'DEL'],
  ['KV-Operation', `${HOSTILE_MARK}\u0001`],
  ['Nats-Rollup', 'sub'],
  ['Nats-Rollup', 'all'],
  ['Nats-Rollup', 'x'],
  ['Nats-Expected-Last-Subject-Sequence', '-1'],
  ['Nats-Expected-Last-Subject-Sequence', '99999999999999999999999'],
  ['Nats-Expected-Last-Sequence', 'abc'],
  ['Nats-Expected-Stream', '../../zz-hostile'],
  ['Nats-Msg-Id', 'i'.repeat(60_000)],
  ['Nats-TTL', '-5s'],
];

export function apiCase(seed: number): ApiCase {
  const r = seeded(seed);
  const kind = r(10);
  if (kind < 7) return jsApiCase(seed, r);
  const objects = kind === 9;
  const token = tokens[r(tokens.length)];
  const subject = objects
    ? `$O.${FUZZ_OBJECTS}.${r(2) === 0 ? 'M' : 'C'}.${token}`
    : `$KV.${FUZZ_BUCKET}.${token}${r(2) === 0 ? `.${token}` : ''}`;
  const meta = objects
    ? { name: `../../${HOSTILE_MARK}`, bucket: FUZZ_OBJECTS, nuid: token, size: -1, chunks: 1e308 }
    : { value: 'v' };
  const body = r(3) === 0 ? hostileBody(r) : withHostileField(meta, r);
  const headerCount = r(3);
  const headers = Array.from(
    { length: headerCount },
    () => hostileHeaders[r(hostileHeaders.length)],
  );
  return { seed, kind: objects ? 'object' : 'kv', subject, body, headers };
}

function jsApiCase(seed: number, r: Random): ApiCase {
  const name = tokens[r(tokens.length)];
  const consumer = tokens[r(tokens.length)];
  const { subject, body } = templates[r(templates.length)](name, consumer, r);
  const text = r(4) === 0 ? hostileBody(r) : r(8) === 0 ? encode(body) : withHostileField(body, r);
  return { seed, kind: 'jsapi', subject: `$JS.API.${subject}`, body: text };
}

function hostileBody(r: Random): Uint8Array {
  const body = hostileBodies[r(hostileBodies.length)](r);
  return typeof body === 'string' ? encode(body) : body;
}

const encode = (value: unknown) =>
  new TextEncoder().encode(typeof value === 'string' ? value : JSON.stringify(value));

/** The valid body with one field, chosen at any depth, replaced by a hostile raw value. */
function withHostileField(body: unknown, r: Random): Uint8Array {
  const sentinel = '__hostile_value__';
  const copy = JSON.parse(JSON.stringify(body)) as Record<string, unknown>;
  const paths: Array<[Record<string, unknown>, string]> = [];
  const walk = (node: Record<string, unknown>) => {
    for (const [key, value] of Object.entries(node)) {
      paths.push([node, key]);
      if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
        walk(value as Record<string, unknown>);
      }
    }
  };
  walk(copy);
  if (paths.length === 0 || r(5) === 0) copy[`${HOSTILE_MARK}_extra`] = sentinel;
  else {
    const [node, key] = paths[r(paths.length)];
    node[key] = sentinel;
  }
  return encode(
    JSON.stringify(copy).replace(`"${sentinel}"`, hostileValues[r(hostileValues.length)](r)),
  );
}
