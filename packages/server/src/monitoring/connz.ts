import { GLOBAL_ACCOUNT } from '../accounts/account.js';
import { type ConnectionState, snapshotConnection } from './connection-state.js';
import { goDuration, rfc3339, uptime } from './format.js';
import type { MonitoredServer } from './monitored-server.js';
import { type Query, QueryError } from './query.js';

/** nats-server's /connz page size. */
const DEFAULT_LIMIT = 1024;

type State = 'open' | 'closed' | 'any';

/** Sort keys nats-server accepts; each compares so that the wanted first entry sorts first. */
const SORTS: Record<string, (now: number) => (a: ConnectionState, b: ConnectionState) => number> = {
  cid: () => (a, b) => a.cid - b.cid,
  start: () => (a, b) => a.startedAt - b.startedAt || a.cid - b.cid,
  subs: () => (a, b) => b.subscriptions.length - a.subscriptions.length,
  pending: () => (a, b) => b.pendingBytes - a.pendingBytes,
  msgs_to: () => (a, b) => b.outMsgs - a.outMsgs,
  msgs_from: () => (a, b) => b.inMsgs - a.inMsgs,
  bytes_to: () => (a, b) => b.outBytes - a.outBytes,
  bytes_from: () => (a, b) => b.inBytes - a.inBytes,
  last: () => (a, b) => b.lastActivity - a.lastActivity,
  idle: (now) => (a, b) => idleOf(b, now) - idleOf(a, now),
  uptime: (now) => (a, b) => uptimeOf(b, now) - uptimeOf(a, now),
  stop: () => (a, b) => (b.stoppedAt ?? 0) - (a.stoppedAt ?? 0),
  reason: () => (a, b) => (a.reason ?? '').localeCompare(b.reason ?? ''),
  rtt: () => (a, b) => (b.rtt ?? 0) - (a.rtt ?? 0),
};

const idleOf = (c: ConnectionState, now: number) => (c.stoppedAt ?? now) - c.lastActivity;
const uptimeOf = (c: ConnectionState, now: number) => (c.stoppedAt ?? now) - c.startedAt;

/** /connz: open and/or closed connections, sorted, paged, optionally with their subscriptions. */
export function connz(server: MonitoredServer, query: Query) {
  const sortKey = query.string('sort') ?? 'cid';
  const sort = SORTS[sortKey];
  if (!sort) throw new QueryError(`invalid sorting option: ${sortKey}`);
  const state = parseState(query.string('state'));
  if ((sortKey === 'stop' || sortKey === 'reason') && state === 'open') {
    throw new QueryError(`sort by ${sortKey} only valid on closed connections`);
  }
  const subs = query.detail('subs');
  const auth = query.bool('auth');
  const user = query.string('user');
  const account = query.string('acc');
  const cid = query.uint('cid');
  let offset = Math.max(0, query.int('offset', 0));
  let limit = query.int('limit', DEFAULT_LIMIT);
  if (limit <= 0) limit = DEFAULT_LIMIT;
  const now = Date.now();

  let candidates: ConnectionState[] = [];
  if (state !== 'closed') {
    for (const client of server.clients.values()) candidates.push(snapshotConnection(client));
  }
  if (state !== 'open') candidates.push(...server.closedConnections);
  // nats-server reports the state's total even when one cid is asked for.
  let total = candidates.length;
  if (cid !== undefined) {
    const found = candidates.find((c) => c.cid === cid);
    candidates = found ? [found] : [];
    offset = 0;
    limit = 1;
  }
  if (user !== undefined) candidates = candidates.filter((c) => c.user === user);
  if (account !== undefined) candidates = candidates.filter((c) => c.account === account);
  if (cid === undefined) total = candidates.length;
  candidates.sort(sort(now));
  const page = candidates.slice(offset, offset + limit);
  return {
    server_id: server.serverId,
    now: rfc3339(now),
    num_connections: page.length,
    total,
    offset,
    limit,
    connections: page.map((c) => connInfo(c, now, subs, auth)),
  };
}

function parseState(value: string | undefined): State {
  switch (value) {
    case undefined:
    case 'open':
      return 'open';
    case 'closed':
      return 'closed';
    case 'any':
    case 'all':
      return 'any';
    default:
      throw new QueryError(`Error decoding state for ${value}`);
  }
}

function connInfo(
  c: ConnectionState,
  now: number,
  subs: 'none' | 'list' | 'detail',
  auth: boolean,
) {
  const closed = c.stoppedAt !== undefined;
  return {
    cid: c.cid,
    kind: 'Client',
    type: 'nats',
    ip: c.ip,
    port: c.port,
    start: rfc3339(c.startedAt),
    last_activity: rfc3339(c.lastActivity),
    ...(closed ? { stop: rfc3339(c.stoppedAt!), reason: c.reason } : {}),
    ...(c.rtt === undefined ? {} : { rtt: goDuration(c.rtt) }),
    uptime: uptime(uptimeOf(c, now)),
    idle: uptime(idleOf(c, now)),
    pending_bytes: c.pendingBytes,
    in_msgs: c.inMsgs,
    out_msgs: c.outMsgs,
    in_bytes: c.inBytes,
    out_bytes: c.outBytes,
    subscriptions: c.subscriptions.length,
    ...(c.name ? { name: c.name } : {}),
    ...(c.lang ? { lang: c.lang } : {}),
    ...(c.version ? { version: c.version } : {}),
    ...(c.tls ? { tls_version: c.tls.version, tls_cipher_suite: c.tls.cipherSuite } : {}),
    ...(auth && c.user !== undefined ? { authorized_user: c.user } : {}),
    // nats-server names the account only when it is not the global one.
    ...(auth && c.user !== undefined && c.account !== GLOBAL_ACCOUNT ? { account: c.account } : {}),
    ...(subs === 'list' && c.subscriptions.length > 0
      ? { subscriptions_list: c.subscriptions.map((s) => s.subject) }
      : {}),
    ...(subs === 'detail' && c.subscriptions.length > 0
      ? {
          subscriptions_list_detail: c.subscriptions.map((s) => ({
            // nats-server names the account only for closed connections' subscriptions.
            ...(closed ? { account: c.account } : {}),
            subject: s.subject,
            ...(s.queue === undefined ? {} : { qgroup: s.queue }),
            sid: s.sid,
            msgs: s.msgs,
            ...(s.max === undefined ? {} : { max: s.max }),
            cid: c.cid,
          })),
        }
      : {}),
  };
}
