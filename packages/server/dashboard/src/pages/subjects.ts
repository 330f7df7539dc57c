import { getJson } from '../api.js';
import { errorBox, facts, fill, h, section } from '../dom.js';
import { count } from '../format.js';
import { DataTable } from '../table.js';
import type { Page } from './page.js';

interface SubscriptionDetail {
  subject: string;
  qgroup?: string;
  msgs: number;
  cid: number;
}

interface SubjectRow {
  subject: string;
  subscriptions: number;
  queues: number;
  msgs: number;
}

interface PrefixRow {
  prefix: string;
  subscriptions: number;
}

/** The first `depth` tokens of a subject. */
const prefixOf = (subject: string, depth: number) => subject.split('.').slice(0, depth).join('.');

/**
 * The clients' subscriptions by subject (/connz?subs=detail: each subscription's delivered
 * message count) and by subject prefix, with the sublist's figures from /subsz.
 */
export const subjectsPage: Page = ({ root, live, onLeave }) => {
  const busiest = new DataTable<SubjectRow>(
    [
      { title: 'Subject', cell: (r) => r.subject, sort: (r) => r.subject },
      {
        title: 'Subscriptions',
        cell: (r) => count(r.subscriptions),
        sort: (r) => r.subscriptions,
        numeric: true,
      },
      { title: 'Queue subs', cell: (r) => count(r.queues), sort: (r) => r.queues, numeric: true },
      {
        title: 'Messages delivered',
        cell: (r) => count(r.msgs),
        sort: (r) => r.msgs,
        numeric: true,
      },
    ],
    { label: 'subjects', search: (r) => r.subject, sortBy: 3, descending: true },
  );
  let depth = 1;
  const prefixes = new DataTable<PrefixRow>(
    [
      { title: 'Prefix', cell: (r) => r.prefix, sort: (r) => r.prefix },
      {
        title: 'Subscriptions',
        cell: (r) => count(r.subscriptions),
        sort: (r) => r.subscriptions,
        numeric: true,
      },
    ],
    { label: 'subject prefixes', search: (r) => r.prefix, sortBy: 1, descending: true },
  );
  const depthPicker = h(
    'select',
    {
      'aria-label': 'Prefix depth',
      onchange: (event: Event) => {
        depth = Number((event.target as HTMLSelectElement).value);
        void refresh();
      },
    },
    ...[1, 2, 3].map((n) => h('option', { value: n }, `${n} token${n > 1 ? 's' : ''}`)),
  );
  const stats = h('div');
  const status = h('div');
  fill(
    root,
    status,
    section('Sublist', stats),
    section('Busiest subjects', busiest.element),
    section(
      'Subscriptions per prefix',
      h('label', { class: 'inline' }, 'Depth ', depthPicker),
      prefixes.element,
    ),
  );
  let loading = false;
  const refresh = async () => {
    if (loading) return;
    loading = true;
    try {
      const [connz, subsz] = await Promise.all([
        getJson<{ connections: { subscriptions_list_detail?: SubscriptionDetail[] }[] | null }>(
          '/connz',
          {
            subs: 'detail',
            limit: 10_000,
          },
        ),
        getJson<Record<string, number>>('/subsz'),
      ]);
      const subjects = new Map<string, SubjectRow>();
      const byPrefix = new Map<string, number>();
      for (const connection of connz.connections ?? []) {
        for (const sub of connection.subscriptions_list_detail ?? []) {
          const row = subjects.get(sub.subject) ?? {
            subject: sub.subject,
            subscriptions: 0,
            queues: 0,
            msgs: 0,
          };
          row.subscriptions++;
          if (sub.qgroup) row.queues++;
          row.msgs += sub.msgs;
          subjects.set(sub.subject, row);
          const prefix = prefixOf(sub.subject, depth);
          byPrefix.set(prefix, (byPrefix.get(prefix) ?? 0) + 1);
        }
      }
      busiest.rows = [...subjects.values()];
      prefixes.rows = [...byPrefix].map(([prefix, subscriptions]) => ({ prefix, subscriptions }));
      fill(
        stats,
        facts([
          ['Subscriptions', count(subsz.num_subscriptions)],
          ['Cached results', count(subsz.num_cache)],
          ['Matches', count(subsz.num_matches)],
          ['Cache hit rate', `${((subsz.cache_hit_rate ?? 0) * 100).toFixed(1)}%`],
          [
            'Fan-out (avg / max)',
            `${(subsz.avg_fanout ?? 0).toFixed(2)} / ${subsz.max_fanout ?? 0}`,
          ],
        ]),
      );
      fill(status);
    } catch (error) {
      fill(status, errorBox(error));
    } finally {
      loading = false;
    }
  };
  let ticks = 0;
  // Every other second: a subscription detail listing is heavier than the other pages' reads.
  onLeave(live.listen(() => ticks++ % 2 === 0 && void refresh()));
};
