import { getJson } from '../api.js';
import { errorBox, fill, h, pageLink, section } from '../dom.js';
import { bytes, count, limit, nanos } from '../format.js';
import type { Tick } from '../live.js';
import { DataTable } from '../table.js';
import type { Damage, StreamInfo } from './jetstream-types.js';
import type { Page } from './page.js';

interface Row extends StreamInfo {
  account: string;
  damage?: Damage;
}

/** The streams (state, limits, storage), one table for every JetStream account. */
export const streamsPage: Page = ({ root, live, config, onLeave }) => {
  const multiAccount = config.jetstream.length > 1;
  const table = new DataTable<Row>(
    [
      ...(multiAccount
        ? [{ title: 'Account', cell: (r: Row) => r.account, sort: (r: Row) => r.account }]
        : []),
      {
        title: 'Name',
        cell: (r) => pageLink(['stream', r.account, r.config.name], r.config.name),
        sort: (r) => r.config.name,
      },
      { title: 'Subjects', cell: (r) => (r.config.subjects ?? []).join(', ') },
      { title: 'Storage', cell: (r) => r.config.storage, sort: (r) => r.config.storage },
      { title: 'Retention', cell: (r) => r.config.retention },
      {
        title: 'Messages',
        cell: (r) => count(r.state.messages),
        sort: (r) => r.state.messages,
        numeric: true,
      },
      {
        title: 'Bytes',
        cell: (r) => bytes(r.state.bytes),
        sort: (r) => r.state.bytes,
        numeric: true,
      },
      { title: 'First', cell: (r) => count(r.state.first_seq), numeric: true },
      {
        title: 'Last',
        cell: (r) => count(r.state.last_seq),
        sort: (r) => r.state.last_seq,
        numeric: true,
      },
      {
        title: 'Consumers',
        cell: (r) => count(r.state.consumer_count),
        sort: (r) => r.state.consumer_count,
        numeric: true,
      },
      {
        title: 'Limits',
        cell: (r) =>
          `msgs ${limit(r.config.max_msgs)} · bytes ${limit(r.config.max_bytes, bytes)} · age ${nanos(r.config.max_age)}`,
      },
      {
        title: 'Damage',
        cell: (r) =>
          r.damage
            ? h(
                'span',
                { class: 'bad' },
                r.damage.error ?? `${r.damage.seqs?.length ?? 0} damaged messages`,
              )
            : '',
      },
    ],
    {
      label: 'streams',
      search: (r) => [r.account, r.config.name, ...(r.config.subjects ?? [])].join(' '),
      sortBy: multiAccount ? 1 : 0,
    },
  );
  const status = h('div');
  fill(root, section('Streams', status, table.element));
  if (config.jetstream.length === 0) {
    fill(status, h('p', { class: 'muted' }, 'JetStream is not enabled on this server.'));
    return;
  }
  let seen = '';
  const refresh = async (tick: Tick) => {
    const state = JSON.stringify(tick.jetstream ?? {});
    if (state === seen) return;
    seen = state;
    try {
      const perAccount = await Promise.all(
        config.jetstream.map(async (account) => {
          const body = await getJson<{ streams: StreamInfo[]; damaged: Damage[] }>(
            '/dashboard/api/streams',
            {
              account,
            },
          );
          return body.streams.map((s) => ({
            ...s,
            account,
            damage: body.damaged.find((d) => d.stream === s.config.name),
          }));
        }),
      );
      table.rows = perAccount.flat();
      fill(status);
    } catch (error) {
      seen = '';
      fill(status, errorBox(error));
    }
  };
  onLeave(live.listen((tick) => void refresh(tick)));
};
