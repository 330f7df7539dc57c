import { getJson } from '../api.js';
import { errorBox, fill, h, section } from '../dom.js';
import { bytes, count } from '../format.js';
import { DataTable } from '../table.js';
import type { Page } from './page.js';

interface AccountStat {
  acc: string;
  conns: number;
  total_conns: number;
  sent: { msgs: number; bytes: number };
  received: { msgs: number; bytes: number };
  slow_consumers: number;
}

/** Each account's connections and traffic (/accstatz, the unused accounts included). */
export const accountsPage: Page = ({ root, live, config, onLeave }) => {
  const status = h('div');
  const table = new DataTable<AccountStat>(
    [
      { title: 'Account', cell: (a) => a.acc, sort: (a) => a.acc },
      { title: 'Connections', cell: (a) => count(a.conns), sort: (a) => a.conns, numeric: true },
      {
        title: 'Total',
        cell: (a) => count(a.total_conns),
        sort: (a) => a.total_conns,
        numeric: true,
      },
      {
        title: 'Msgs sent',
        cell: (a) => count(a.sent.msgs),
        sort: (a) => a.sent.msgs,
        numeric: true,
      },
      {
        title: 'Bytes sent',
        cell: (a) => bytes(a.sent.bytes),
        sort: (a) => a.sent.bytes,
        numeric: true,
      },
      {
        title: 'Msgs received',
        cell: (a) => count(a.received.msgs),
        sort: (a) => a.received.msgs,
        numeric: true,
      },
      {
        title: 'Bytes received',
        cell: (a) => bytes(a.received.bytes),
        sort: (a) => a.received.bytes,
        numeric: true,
      },
      { title: 'Slow consumers', cell: (a) => count(a.slow_consumers), numeric: true },
      { title: 'JetStream', cell: (a) => (config.jetstream.includes(a.acc) ? 'yes' : '') },
    ],
    { label: 'accounts', search: (a) => a.acc, sortBy: 0 },
  );
  fill(root, section('Accounts', status, table.element));
  if (!config.accounts) {
    fill(
      status,
      h(
        'p',
        { class: 'muted' },
        'No accounts are configured: every client is in the global account.',
      ),
    );
  }
  onLeave(
    live.listen(() => {
      getJson<{ account_statz: AccountStat[] | null }>('/accstatz', { unused: 1 }).then(
        (body) => {
          table.rows = body.account_statz ?? [];
        },
        (error: unknown) => fill(status, errorBox(error)),
      );
    }),
  );
};
