import { isValidPublishSubject, subjectMatches } from '@slipstream/protocol';
import { rfc3339 } from './format.js';
import type { MonitoredServer } from './monitored-server.js';
import { type Query, QueryError } from './query.js';

const DEFAULT_LIMIT = 1024;

/**
 * /subsz: the sublist statistics; with `subs=1` also server_id, now, paging and the subscription
 * list (optionally only those a `test` subject would reach). Plain /subsz prints the statistics
 * alone, as nats-server 2.9.10 does.
 */
export function subsz(server: MonitoredServer, query: Query) {
  const sublist = server.router.sublist;
  const withList = query.bool('subs');
  const test = query.string('test');
  if (test !== undefined && !isValidPublishSubject(test)) {
    throw new QueryError(`invalid test subject, must be valid publish subject: ${test}`);
  }
  const offset = Math.max(0, query.int('offset', 0));
  let limit = query.int('limit', DEFAULT_LIMIT);
  if (limit <= 0) limit = DEFAULT_LIMIT;
  const stats = sublist.stats();
  if (!withList) return stats;
  let subs = sublist.all();
  if (test !== undefined) subs = subs.filter((s) => subjectMatches(test, s.subject));
  const page = subs.slice(offset, offset + limit);
  return {
    server_id: server.serverId,
    now: rfc3339(Date.now()),
    ...stats,
    // nats-server 2.9.10 counts the page, not every match; clients paging through it expect that.
    total: page.length,
    offset,
    limit,
    subscriptions_list: page.map((s) => ({
      account: '$G',
      subject: s.subject,
      ...(s.queue === undefined ? {} : { qgroup: s.queue }),
      sid: s.sid,
      msgs: s.delivered,
      ...(s.max === undefined ? {} : { max: s.max }),
      cid: s.subscriber.cid,
    })),
  };
}
