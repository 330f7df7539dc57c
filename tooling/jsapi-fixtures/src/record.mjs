// Records every JetStream API subject (success and error cases) against the real nats-server
// 2.9.10 and writes request/response pairs to packages/jsapi/test/fixtures:
//   api/<nn>-<case>.json       {name, subject, operation, request, replies: [{headers?, data, reply?}]}
//   events/<type>-<n>.json     advisories and metrics seen on $JS.EVENT.> meanwhile
//   official/*.json            API requests of the official nats.js KV/object store clients
//                              (from the audit advisories) and the object metadata they wrote
// Run: pnpm --filter @slipstream/jsapi-fixtures record (needs @slipstream/jsapi built).
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { kvStreamConfig, objectStoreStreamConfig, parseApiSubject } from '@slipstream/jsapi';
import { startNatsServer } from '@slipstream/test-servers';
import { recordOfficialClients } from './official-clients.mjs';
import { rawConnect } from './raw-nats.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, '..', '..', '..', 'packages', 'jsapi', 'test', 'fixtures');
const API = '$JS.API';
const EVENTS_PER_TYPE = 3;

const server = await startNatsServer({ jetstream: true, config: 'server_name: fixtures' });
const nc = await rawConnect(server.port);
const recorded = [];
const events = new Map();
await nc.subscribe('$JS.EVENT.>', (msg) => {
  const type = JSON.parse(msg.data).type;
  const list = events.get(type) ?? [];
  if (list.length < EVENTS_PER_TYPE) list.push({ subject: msg.subject, data: msg.data });
  events.set(type, list);
});

/** One API call: sends `body` (object → JSON, string as is) and records what came back. */
async function call(name, subject, body = '', options = {}) {
  const request = typeof body === 'string' ? body : JSON.stringify(body);
  const replies = await nc.request(subject, request, options);
  const parsed = parseApiSubject(subject);
  recorded.push({
    name,
    subject,
    // responseOf: the operation whose response schema a reply on a non-API subject follows.
    operation: parsed?.operation ?? options.responseOf ?? null,
    request,
    ...(options.headers ? { requestHeaders: options.headers } : {}),
    replies: replies.map(({ subject: _, bytes: __, ...msg }) => msg),
  });
  const first = replies[0];
  return first && !first.headers ? safeJson(first.data) : undefined;
}

const safeJson = (text) => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

const publish = (name, subject, data, headers) => call(name, subject, data, { headers });

// --- account
await call('account-info', `${API}.INFO`);

// --- streams
const orders = { name: 'ORDERS', subjects: ['orders.*'], allow_direct: true };
await call('stream-create', `${API}.STREAM.CREATE.ORDERS`, orders);
await call('stream-create-identical-again', `${API}.STREAM.CREATE.ORDERS`, orders);
await call('stream-create-different-config', `${API}.STREAM.CREATE.ORDERS`, {
  ...orders,
  max_msgs: 5,
});
await call('stream-create-name-mismatch', `${API}.STREAM.CREATE.OTHER`, { name: 'NOTOTHER' });
await call('stream-create-invalid-json', `${API}.STREAM.CREATE.BAD`, '{"name":');
await call('stream-create-empty-body', `${API}.STREAM.CREATE.BAD`, '');
await call('stream-create-unknown-enum', `${API}.STREAM.CREATE.BAD`, {
  name: 'BAD',
  retention: 'nope',
});
await call('stream-create-path-separator', `${API}.STREAM.CREATE.a/b`, { name: 'a/b' });
await call('stream-create-replicas', `${API}.STREAM.CREATE.R3`, { name: 'R3', num_replicas: 3 });
await call('stream-create-overlap', `${API}.STREAM.CREATE.OVERLAP`, {
  name: 'OVERLAP',
  subjects: ['orders.a'],
});
await call('stream-create-api-overlap', `${API}.STREAM.CREATE.APIO`, {
  name: 'APIO',
  subjects: ['$JS.API.>'],
});
await call('stream-create-sealed', `${API}.STREAM.CREATE.SEALED`, { name: 'SEALED', sealed: true });
await call('stream-create-no-subjects', `${API}.STREAM.CREATE.NOSUBJ`, {
  name: 'NOSUBJ',
  storage: 'memory',
});
await call('stream-create-full-config', `${API}.STREAM.CREATE.FULL`, {
  name: 'FULL',
  description: 'every field a 2.9.10 server knows',
  subjects: ['full.>'],
  retention: 'interest',
  max_consumers: 10,
  max_msgs: 1000,
  max_bytes: 1048576,
  max_age: 3600000000000,
  max_msgs_per_subject: 5,
  max_msg_size: 1024,
  discard: 'new',
  storage: 'memory',
  num_replicas: 1,
  duplicate_window: 60000000000,
  no_ack: false,
  republish: { src: 'full.>', dest: 'repub.>', headers_only: true },
  allow_direct: true,
  deny_delete: true,
  allow_rollup_hdrs: true,
  placement: { cluster: '', tags: [] },
  // Newer fields: 2.9.10 ignores them (lenient decoding) and does not echo them.
  compression: 's2',
  metadata: { owner: 'fixtures' },
  consumer_limits: { inactive_threshold: 10000000000 },
});
await call('stream-create-mirror-with-subjects', `${API}.STREAM.CREATE.MIRRORBAD`, {
  name: 'MIRRORBAD',
  subjects: ['m.>'],
  mirror: { name: 'ORDERS' },
});
await call('stream-create-mirror', `${API}.STREAM.CREATE.MIRROR`, {
  name: 'MIRROR',
  mirror: { name: 'ORDERS', opt_start_seq: 1 },
  mirror_direct: true,
});
await call('stream-create-sources', `${API}.STREAM.CREATE.SOURCED`, {
  name: 'SOURCED',
  sources: [{ name: 'ORDERS', filter_subject: 'orders.a' }, { name: 'FULL' }],
});
await call(
  'stream-create-kv-bucket',
  `${API}.STREAM.CREATE.KV_config`,
  kvStreamConfig({ bucket: 'config', history: 5 }),
);
await call(
  'stream-create-object-store',
  `${API}.STREAM.CREATE.OBJ_files`,
  objectStoreStreamConfig({ bucket: 'files' }),
);
await call('stream-update', `${API}.STREAM.UPDATE.ORDERS`, { ...orders, description: 'updated' });
await call('stream-update-storage-change', `${API}.STREAM.UPDATE.ORDERS`, {
  ...orders,
  storage: 'memory',
});
await call('stream-update-missing', `${API}.STREAM.UPDATE.MISSING`, { name: 'MISSING' });
await call('stream-create-to-seal', `${API}.STREAM.CREATE.SEALED2`, {
  name: 'SEALED2',
  subjects: ['sealed2'],
});
await call('stream-update-sealed', `${API}.STREAM.UPDATE.SEALED2`, {
  name: 'SEALED2',
  subjects: ['sealed2'],
  sealed: true,
});

// --- publishing (PubAcks)
await publish('pub-ack', 'orders.a', 'first');
await publish('pub-ack-with-headers', 'orders.b', 'second', { 'Nats-Msg-Id': 'm2', Trace: 'x' });
await publish('pub-ack-duplicate', 'orders.b', 'second', { 'Nats-Msg-Id': 'm2' });
await publish('pub-ack-expected-stream-mismatch', 'orders.a', 'x', {
  'Nats-Expected-Stream': 'NOPE',
});
await publish('pub-ack-wrong-last-sequence', 'orders.a', 'x', {
  'Nats-Expected-Last-Sequence': '99',
});
await publish('pub-ack-wrong-last-msg-id', 'orders.a', 'x', {
  'Nats-Expected-Last-Msg-Id': 'nope',
});
await publish('pub-ack-sealed', 'sealed2', 'x');
for (let i = 0; i < 4; i++)
  await publish(`pub-ack-bulk-${i}`, `orders.${i % 2 ? 'a' : 'c'}`, `m${i}`);
await publish('pub-ack-kv-put', '$KV.config.app.name', 'slipstream');
await publish('pub-ack-kv-delete', '$KV.config.app.name', '', { 'KV-Operation': 'DEL' });
await publish('pub-ack-full', 'full.x', 'payload');

await call('stream-names', `${API}.STREAM.NAMES`);
await call('stream-names-subject', `${API}.STREAM.NAMES`, { subject: 'orders.a' });
await call('stream-names-offset', `${API}.STREAM.NAMES`, { offset: 100 });
await call('stream-list', `${API}.STREAM.LIST`);
await call('stream-info', `${API}.STREAM.INFO.ORDERS`);
await call('stream-info-subjects', `${API}.STREAM.INFO.ORDERS`, { subjects_filter: '>' });
await call('stream-info-mirror', `${API}.STREAM.INFO.MIRROR`);
await call('stream-info-sourced', `${API}.STREAM.INFO.SOURCED`);
await call('stream-info-missing', `${API}.STREAM.INFO.MISSING`);
await call('stream-info-invalid-json', `${API}.STREAM.INFO.ORDERS`, '{');

await call('stream-msg-get-seq', `${API}.STREAM.MSG.GET.ORDERS`, { seq: 1 });
await call('stream-msg-get-headers', `${API}.STREAM.MSG.GET.ORDERS`, { seq: 2 });
await call('stream-msg-get-last-by-subject', `${API}.STREAM.MSG.GET.ORDERS`, {
  last_by_subj: 'orders.a',
});
await call('stream-msg-get-next-by-subject', `${API}.STREAM.MSG.GET.ORDERS`, {
  seq: 1,
  next_by_subj: 'orders.c',
});
await call('stream-msg-get-not-found', `${API}.STREAM.MSG.GET.ORDERS`, { seq: 999 });
await call('stream-msg-get-empty', `${API}.STREAM.MSG.GET.ORDERS`, '');
await call('stream-msg-delete', `${API}.STREAM.MSG.DELETE.ORDERS`, { seq: 3 });
await call('stream-msg-delete-no-erase', `${API}.STREAM.MSG.DELETE.ORDERS`, {
  seq: 4,
  no_erase: true,
});
await call('stream-msg-delete-missing-seq', `${API}.STREAM.MSG.DELETE.ORDERS`, {});
await call('stream-info-deleted-details', `${API}.STREAM.INFO.ORDERS`, { deleted_details: true });

await call('direct-get-seq', `${API}.DIRECT.GET.ORDERS`, { seq: 2 });
await call('direct-get-last-by-subject', `${API}.DIRECT.GET.ORDERS.orders.a`);
await call('direct-get-not-found', `${API}.DIRECT.GET.ORDERS`, { seq: 999 });
await call('direct-get-empty', `${API}.DIRECT.GET.ORDERS`, '');
await call('direct-get-conflict', `${API}.DIRECT.GET.ORDERS`, { seq: 1, last_by_subj: 'orders.a' });
await call('direct-get-not-enabled', `${API}.DIRECT.GET.SOURCED`, { seq: 1 }, { timeoutMs: 500 });
await call('direct-get-kv', `${API}.DIRECT.GET.KV_config.$KV.config.app.name`);

// --- consumers
const explicit = { ack_policy: 'explicit' };
await call('consumer-durable-create', `${API}.CONSUMER.DURABLE.CREATE.ORDERS.D1`, {
  stream_name: 'ORDERS',
  config: { durable_name: 'D1', ...explicit, max_deliver: 3, backoff: [1000000000, 2000000000] },
});
await call('consumer-create-named', `${API}.CONSUMER.CREATE.ORDERS.C2`, {
  stream_name: 'ORDERS',
  config: {
    name: 'C2',
    durable_name: 'C2',
    ...explicit,
    description: 'named',
    sample_freq: '100%',
  },
});
await call('consumer-create-filtered', `${API}.CONSUMER.CREATE.ORDERS.C3.orders.a`, {
  stream_name: 'ORDERS',
  config: {
    name: 'C3',
    ...explicit,
    filter_subject: 'orders.a',
    deliver_policy: 'last_per_subject',
  },
});
await call('consumer-create-filter-mismatch', `${API}.CONSUMER.CREATE.ORDERS.C4.orders.a`, {
  stream_name: 'ORDERS',
  config: { name: 'C4', ...explicit, filter_subject: 'orders.b' },
});
await call('consumer-create-ephemeral', `${API}.CONSUMER.CREATE.ORDERS`, {
  stream_name: 'ORDERS',
  config: explicit,
});
await call('consumer-create-ephemeral-with-durable', `${API}.CONSUMER.CREATE.ORDERS`, {
  stream_name: 'ORDERS',
  config: { durable_name: 'X', ...explicit },
});
await call('consumer-create-push', `${API}.CONSUMER.CREATE.ORDERS.PUSH`, {
  stream_name: 'ORDERS',
  config: {
    name: 'PUSH',
    durable_name: 'PUSH',
    deliver_subject: 'deliver.push',
    deliver_group: 'workers',
    flow_control: true,
    idle_heartbeat: 5000000000,
    headers_only: true,
    rate_limit_bps: 1000000,
    ack_policy: 'all',
    replay_policy: 'instant',
    deliver_policy: 'new',
  },
});
await call('consumer-create-pull-limits', `${API}.CONSUMER.CREATE.ORDERS.LIMITS`, {
  stream_name: 'ORDERS',
  config: {
    name: 'LIMITS',
    durable_name: 'LIMITS',
    ...explicit,
    max_waiting: 10,
    max_batch: 5,
    max_expires: 10000000000,
    max_bytes: 4096,
    max_ack_pending: 20,
    inactive_threshold: 60000000000,
    deliver_policy: 'by_start_sequence',
    opt_start_seq: 2,
    mem_storage: true,
    num_replicas: 0,
    // Newer fields: ignored by 2.9.10.
    metadata: { team: 'a' },
    filter_subjects: ['orders.a'],
  },
});
await call('consumer-create-by-start-time', `${API}.CONSUMER.CREATE.ORDERS.TIME`, {
  stream_name: 'ORDERS',
  config: {
    name: 'TIME',
    ...explicit,
    deliver_policy: 'by_start_time',
    opt_start_time: '2020-01-02T03:04:05.123456789Z',
  },
});
await call('consumer-create-missing-start-seq', `${API}.CONSUMER.CREATE.ORDERS.BAD`, {
  stream_name: 'ORDERS',
  config: { name: 'BAD', ...explicit, deliver_policy: 'by_start_sequence' },
});
await call('consumer-create-backoff-too-long', `${API}.CONSUMER.CREATE.ORDERS.BAD`, {
  stream_name: 'ORDERS',
  config: {
    name: 'BAD',
    ...explicit,
    max_deliver: 2,
    backoff: [1000000000, 2000000000, 3000000000],
  },
});
await call('consumer-create-stream-mismatch', `${API}.CONSUMER.CREATE.ORDERS.BAD`, {
  stream_name: 'OTHER',
  config: { name: 'BAD', ...explicit },
});
await call('consumer-create-push-max-waiting', `${API}.CONSUMER.CREATE.ORDERS.BAD`, {
  stream_name: 'ORDERS',
  config: { name: 'BAD', deliver_subject: 'd.bad', max_waiting: 5 },
});
await call('consumer-create-durable-name-mismatch', `${API}.CONSUMER.CREATE.ORDERS.ONE`, {
  stream_name: 'ORDERS',
  config: { durable_name: 'TWO', ...explicit },
});
await call('consumer-create-action-create', `${API}.CONSUMER.CREATE.ORDERS.ACT`, {
  stream_name: 'ORDERS',
  action: 'create',
  config: { name: 'ACT', durable_name: 'ACT', ...explicit },
});
await call('consumer-create-missing-stream', `${API}.CONSUMER.CREATE.MISSING.C`, {
  stream_name: 'MISSING',
  config: { name: 'C', ...explicit },
});
await call('consumer-create-invalid-json', `${API}.CONSUMER.CREATE.ORDERS.C`, '{"stream_name":');
await call('consumer-durable-update', `${API}.CONSUMER.DURABLE.CREATE.ORDERS.D1`, {
  stream_name: 'ORDERS',
  config: { durable_name: 'D1', ...explicit, max_deliver: 5, backoff: [1000000000, 2000000000] },
});

await call('consumer-names', `${API}.CONSUMER.NAMES.ORDERS`);
await call('consumer-names-empty', `${API}.CONSUMER.NAMES.FULL`);
await call('consumer-list', `${API}.CONSUMER.LIST.ORDERS`);
await call('consumer-list-missing-stream', `${API}.CONSUMER.LIST.MISSING`);
await call('consumer-info', `${API}.CONSUMER.INFO.ORDERS.D1`);
await call('consumer-info-missing', `${API}.CONSUMER.INFO.ORDERS.NOPE`);
await call('consumer-info-with-body', `${API}.CONSUMER.INFO.ORDERS.D1`, '{}');

// Pull requests: the replies are messages and status messages, recorded as they came.
await call(
  'consumer-next-batch',
  `${API}.CONSUMER.MSG.NEXT.ORDERS.D1`,
  { batch: 3, expires: 1000000000 },
  { count: 3 },
);
await call('consumer-next-empty-body', `${API}.CONSUMER.MSG.NEXT.ORDERS.C2`, '', { count: 1 });
await call('consumer-next-decimal-body', `${API}.CONSUMER.MSG.NEXT.ORDERS.C2`, '2', { count: 2 });
await call(
  'consumer-next-no-wait-nothing',
  `${API}.CONSUMER.MSG.NEXT.ORDERS.C3`,
  { batch: 10, no_wait: true },
  { count: 10, timeoutMs: 800 },
);
await call('consumer-next-heartbeat-too-large', `${API}.CONSUMER.MSG.NEXT.ORDERS.C2`, {
  batch: 1,
  expires: 1000000000,
  idle_heartbeat: 900000000,
});
await call('consumer-next-max-bytes', `${API}.CONSUMER.MSG.NEXT.ORDERS.LIMITS`, {
  batch: 1,
  max_bytes: 1,
  expires: 500000000,
});

// Acknowledgements, to cause the ack metric (EV samples 100%), NAK, TERM and MAX_DELIVERIES events.
const ackNext = async (consumer, body) => {
  const [msg] = await nc.request(
    `${API}.CONSUMER.MSG.NEXT.ORDERS.${consumer}`,
    '{"batch":1,"expires":1000000000}',
  );
  if (msg?.reply?.startsWith('$JS.ACK.')) await nc.request(msg.reply, body, { timeoutMs: 500 });
};
await call('consumer-create-sampled', `${API}.CONSUMER.CREATE.ORDERS.EV`, {
  stream_name: 'ORDERS',
  config: { name: 'EV', durable_name: 'EV', ...explicit, sample_freq: '100%' },
});
await ackNext('EV', '+ACK');
await ackNext('EV', '-NAK');
await ackNext('EV', '+TERM');
await call('consumer-create-max-deliver-1', `${API}.CONSUMER.CREATE.ORDERS.MD`, {
  stream_name: 'ORDERS',
  config: { name: 'MD', durable_name: 'MD', ...explicit, max_deliver: 1 },
});
await ackNext('MD', '-NAK');
await ackNext('MD', '+ACK');

await call(
  'consumer-pause',
  `${API}.CONSUMER.PAUSE.ORDERS.D1`,
  { pause_until: '2099-01-01T00:00:00Z' },
  { timeoutMs: 500 },
);
await call('consumer-unpin', `${API}.CONSUMER.UNPIN.ORDERS.D1`, { group: 'g' }, { timeoutMs: 500 });
await call('consumer-reset', `${API}.CONSUMER.RESET.ORDERS.D1`, '', { timeoutMs: 500 });
await call('consumer-leader-stepdown', `${API}.CONSUMER.LEADER.STEPDOWN.ORDERS.D1`);
await call('consumer-delete', `${API}.CONSUMER.DELETE.ORDERS.C3`);
await call('consumer-delete-missing', `${API}.CONSUMER.DELETE.ORDERS.NOPE`);
await call('consumer-delete-missing-stream', `${API}.CONSUMER.DELETE.MISSING.NOPE`);

// --- snapshot and restore: the chunks are acked, kept and uploaded again, so both complete
// (and their advisories are sent). Chunks are kept as bytes: they are binary (a tar stream).
const snapshotInbox = '_INBOX.fx.snapshot';
const chunks = [];
let snapshotDone;
const snapshotFinished = new Promise((resolve) => {
  snapshotDone = resolve;
});
const unsubscribeSnapshot = await nc.subscribe(snapshotInbox, (msg) => {
  if (msg.reply) nc.publish(msg.reply, '');
  if (msg.bytes.length === 0 && !msg.headers) snapshotDone();
  else if (!msg.headers) chunks.push(msg.bytes);
});
const snapshot = await call('stream-snapshot', `${API}.STREAM.SNAPSHOT.ORDERS`, {
  deliver_subject: snapshotInbox,
  chunk_size: 1024,
});
await Promise.race([snapshotFinished, new Promise((r) => setTimeout(r, 3000))]);
unsubscribeSnapshot();
await call('stream-snapshot-missing-deliver', `${API}.STREAM.SNAPSHOT.ORDERS`, {});
await call('stream-restore-existing', `${API}.STREAM.RESTORE.ORDERS`, {
  config: snapshot.config,
  state: snapshot.state,
});
await call('stream-delete-for-restore', `${API}.STREAM.DELETE.ORDERS`);
const restore = await call('stream-restore', `${API}.STREAM.RESTORE.ORDERS`, {
  config: snapshot.config,
  state: snapshot.state,
});
for (const chunk of chunks) await nc.request(restore.deliver_subject, chunk, { timeoutMs: 2000 });
// The empty message ends the upload; its reply reports the restored stream.
await call('stream-restore-complete', restore.deliver_subject, '', {
  timeoutMs: 5000,
  responseOf: 'streamCreate',
});

// --- clustering-only and system calls on a standalone server
await call('stream-leader-stepdown', `${API}.STREAM.LEADER.STEPDOWN.ORDERS`);
await call('stream-peer-remove', `${API}.STREAM.PEER.REMOVE.ORDERS`, { peer: 'x' });
await call('meta-leader-stepdown', `${API}.META.LEADER.STEPDOWN`, '', { timeoutMs: 500 });
await call('server-remove', `${API}.SERVER.REMOVE`, { peer: 'x' }, { timeoutMs: 500 });
await call(
  'account-stream-move',
  `${API}.ACCOUNT.STREAM.MOVE.$G.ORDERS`,
  { cluster: 'c2' },
  { timeoutMs: 500 },
);
await call('unknown-api-subject', `${API}.NOPE`, '', { timeoutMs: 500 });

// --- stream templates (2.9.10 only)
await call('stream-template-create', `${API}.STREAM.TEMPLATE.CREATE.T1`, {
  name: 'T1',
  config: {
    subjects: ['tmpl.*'],
    storage: 'memory',
    max_age: 0,
    max_msgs: -1,
    max_bytes: -1,
    max_consumers: -1,
    retention: 'limits',
    discard: 'old',
    num_replicas: 1,
  },
  max_streams: 3,
});
await publish('pub-ack-template', 'tmpl.one', 'via template');
await call('stream-template-names', `${API}.STREAM.TEMPLATE.NAMES`);
await call('stream-template-info', `${API}.STREAM.TEMPLATE.INFO.T1`);
await call('stream-template-delete', `${API}.STREAM.TEMPLATE.DELETE.T1`);
await call('stream-template-info-missing', `${API}.STREAM.TEMPLATE.INFO.T1`);

// --- purge and delete
await call('stream-purge-subject', `${API}.STREAM.PURGE.ORDERS`, { filter: 'orders.c' });
await call('stream-purge-seq-and-keep', `${API}.STREAM.PURGE.ORDERS`, { seq: 2, keep: 1 });
await call('stream-purge-keep', `${API}.STREAM.PURGE.ORDERS`, { keep: 1 });
await call('stream-purge', `${API}.STREAM.PURGE.ORDERS`);
await call('stream-purge-sealed', `${API}.STREAM.PURGE.SEALED2`);
await call('stream-delete-with-body', `${API}.STREAM.DELETE.FULL`, '{}');
await call('stream-delete', `${API}.STREAM.DELETE.FULL`);
await call('stream-delete-missing', `${API}.STREAM.DELETE.FULL`);
await call('account-info-after', `${API}.INFO`);
const official = await recordOfficialClients(server.port, nc);
// Last: 2.9.10 lets any account purge itself (all its streams go).
await call('account-purge', `${API}.ACCOUNT.PURGE.$G`);

await nc.flush();
await new Promise((r) => setTimeout(r, 300));
await nc.close();
await server.stop();

rmSync(join(out, 'api'), { recursive: true, force: true });
rmSync(join(out, 'events'), { recursive: true, force: true });
rmSync(join(out, 'official'), { recursive: true, force: true });
mkdirSync(join(out, 'api'), { recursive: true });
mkdirSync(join(out, 'events'), { recursive: true });
mkdirSync(join(out, 'official'), { recursive: true });
writeFileSync(
  join(out, 'official', 'api-audit.json'),
  `${JSON.stringify(official.audits, null, 2)}\n`,
);
writeFileSync(
  join(out, 'official', 'object-meta.json'),
  `${JSON.stringify(official.objectMeta, null, 2)}\n`,
);
recorded.forEach((entry, i) => {
  const file = join(out, 'api', `${String(i + 1).padStart(3, '0')}-${entry.name}.json`);
  writeFileSync(file, `${JSON.stringify(entry, null, 2)}\n`);
});
let eventCount = 0;
for (const [type, list] of events) {
  list.forEach((event, i) => {
    eventCount++;
    const file = join(out, 'events', `${type.replace(/^io\.nats\.jetstream\./, '')}-${i + 1}.json`);
    writeFileSync(file, `${JSON.stringify(event, null, 2)}\n`);
  });
}
console.log(
  `recorded ${recorded.length} API calls, ${eventCount} events, ${official.audits.length} official client requests and ${official.objectMeta.length} object metas into ${out}`,
);
