import { getJson } from '../api.js';
import { errorBox, fill, h, section } from '../dom.js';
import { bytes, count, rate } from '../format.js';
import { DataTable } from '../table.js';
import type { Page } from './page.js';

interface Connection {
  cid: number;
  name?: string;
  ip: string;
  port: number;
  account?: string;
  authorized_user?: string;
  lang?: string;
  version?: string;
  subscriptions: number;
  pending_bytes: number;
  in_msgs: number;
  out_msgs: number;
  in_bytes: number;
  out_bytes: number;
  rtt?: string;
  idle: string;
  uptime: string;
  tls_version?: string;
}

interface Row extends Connection {
  inRate: number;
  outRate: number;
}

/** /connz as a table, with message rates from the change between two refreshes. */
export const connectionsPage: Page = ({ root, live, onLeave }) => {
  const table = new DataTable<Row>(
    [
      { title: 'CID', cell: (c) => c.cid, sort: (c) => c.cid, numeric: true },
      { title: 'Name', cell: (c) => c.name ?? '', sort: (c) => c.name ?? '' },
      { title: 'Address', cell: (c) => `${c.ip}:${c.port}`, sort: (c) => c.ip },
      { title: 'Account', cell: (c) => c.account ?? '', sort: (c) => c.account ?? '' },
      { title: 'User', cell: (c) => c.authorized_user ?? '', sort: (c) => c.authorized_user ?? '' },
      {
        title: 'Client',
        cell: (c) => [c.lang, c.version].filter(Boolean).join(' '),
        sort: (c) => c.lang ?? '',
      },
      {
        title: 'Subs',
        cell: (c) => count(c.subscriptions),
        sort: (c) => c.subscriptions,
        numeric: true,
      },
      {
        title: 'Pending',
        cell: (c) => bytes(c.pending_bytes),
        sort: (c) => c.pending_bytes,
        numeric: true,
      },
      { title: 'In', cell: (c) => rate(c.inRate), sort: (c) => c.inRate, numeric: true },
      { title: 'Out', cell: (c) => rate(c.outRate), sort: (c) => c.outRate, numeric: true },
      { title: 'Msgs in', cell: (c) => count(c.in_msgs), sort: (c) => c.in_msgs, numeric: true },
      { title: 'Msgs out', cell: (c) => count(c.out_msgs), sort: (c) => c.out_msgs, numeric: true },
      { title: 'RTT', cell: (c) => c.rtt ?? '' },
      { title: 'Idle', cell: (c) => c.idle },
      { title: 'Uptime', cell: (c) => c.uptime },
    ],
    {
      label: 'connections',
      search: (c) =>
        [c.cid, c.name, c.ip, c.account, c.authorized_user, c.lang, c.version].join(' '),
      sortBy: 0,
    },
  );
  const status = h('div');
  fill(root, section('Connections', status, table.element));
  let previous = new Map<number, Connection>();
  let previousAt = 0;
  let loading = false;
  const refresh = async () => {
    if (loading) return;
    loading = true;
    try {
      const body = await getJson<{ connections: Connection[] | null; total: number }>('/connz', {
        auth: 1,
        limit: 10_000,
      });
      const now = performance.now();
      const seconds = previousAt ? (now - previousAt) / 1000 : 0;
      const connections = body.connections ?? [];
      table.rows = connections.map((c) => {
        const before = previous.get(c.cid);
        const per = (a: number, b: number | undefined) =>
          before && seconds > 0 ? Math.max(0, a - (b ?? 0)) / seconds : 0;
        return {
          ...c,
          inRate: per(c.in_msgs, before?.in_msgs),
          outRate: per(c.out_msgs, before?.out_msgs),
        };
      });
      previous = new Map(connections.map((c) => [c.cid, c]));
      previousAt = now;
      fill(status);
    } catch (error) {
      fill(status, errorBox(error));
    } finally {
      loading = false;
    }
  };
  onLeave(live.listen(() => void refresh()));
};
