import { isValidPublishSubject, subjectMatches } from '@slipstream/protocol';
import type { SublistStats } from '../sublist.js';
import { rfc3339 } from './format.js';
import type { MonitoredServer } from './monitored-server.js';
import { type Query, QueryError } from './query.js';

const DEFAULT_LIMIT = 1024;

/**
 * /subsz: the sublist statistics; with `subs=1` also server_id, now, paging and the subscription
 * list (optionally only those a `test` subject would reach; left out when empty). Plain /subsz
 * prints the statistics alone, as nats-server 2.9.10 does. `acc` counts and lists one account.
 */
export function subsz(server: MonitoredServer, query: Query) {
  const withList = query.bool('subs');
  const test = query.string('test');
  if (test !== undefined && !isValidPublishSubject(test)) {
    throw new QueryError(`invalid test subject, must be valid publish subject: ${test}`);
  }
  const offset = Math.max(0, query.int('offset', 0));
  let limit = query.int('limit', DEFAULT_LIMIT);
  if (limit <= 0) limit = DEFAULT_LIMIT;
  const only = query.string('acc');
  const accounts = [...server.accounts.values()].filter(
    (a) => only === undefined || a.name === only,
  );
  const stats = combined(accounts.map((account) => account.router.sublist.stats()));
  if (!withList) return stats;
  let subs = accounts.flatMap((account) =>
    account.router.sublist.all().map((sub) => ({ account: account.name, sub })),
  );
  if (test !== undefined) subs = subs.filter(({ sub }) => subjectMatches(test, sub.subject));
  const page = subs.slice(offset, offset + limit);
  return {
    server_id: server.serverId,
    now: rfc3339(Date.now()),
    ...stats,
    // nats-server 2.9.10 counts the page, not every match; clients paging through it expect that.
    total: page.length,
    offset,
    limit,
    ...(page.length === 0
      ? {}
      : {
          subscriptions_list: page.map(({ account, sub: s }) => ({
            account,
            subject: s.subject,
            ...(s.queue === undefined ? {} : { qgroup: s.queue }),
            sid: s.sid,
            msgs: s.delivered,
            ...(s.max === undefined ? {} : { max: s.max }),
            cid: s.subscriber.cid,
          })),
        }),
  };
}

/** Subscriptions of every account, as /varz counts them. */
export function subscriptionCount(server: MonitoredServer): number {
  let count = 0;
  for (const account of server.accounts.values()) count += account.router.sublist.count;
  return count;
}

/** The accounts' sublist figures as one, the way nats-server adds them up. */
function combined(all: SublistStats[]): SublistStats {
  const sum = (key: keyof SublistStats) => all.reduce((total, s) => total + s[key], 0);
  const matched = all.filter((s) => s.num_matches > 0);
  const cached = sum('num_cache');
  return {
    num_subscriptions: sum('num_subscriptions'),
    num_cache: cached,
    num_inserts: sum('num_inserts'),
    num_removes: sum('num_removes'),
    num_matches: sum('num_matches'),
    cache_hit_rate:
      matched.length === 0
        ? 0
        : matched.reduce((total, s) => total + s.cache_hit_rate, 0) / matched.length,
    max_fanout: Math.max(0, ...all.map((s) => s.max_fanout)),
    avg_fanout:
      cached === 0 ? 0 : all.reduce((total, s) => total + s.avg_fanout * s.num_cache, 0) / cached,
  };
}
