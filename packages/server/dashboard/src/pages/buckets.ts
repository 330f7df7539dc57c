import { getJson } from '../api.js';
import { type Child, errorBox, fill, h, pageLink, section } from '../dom.js';
import { bytes, count } from '../format.js';
import type { Tick } from '../live.js';
import { DataTable } from '../table.js';
import type { StreamInfo } from './jetstream-types.js';
import type { Page } from './page.js';

interface Bucket {
  account: string;
  name: string;
  info: StreamInfo;
}

/**
 * The KV buckets or object stores of every JetStream account: the streams named `KV_<bucket>`
 * or `OBJ_<bucket>`, each linking to its page.
 */
export function bucketsPage(kind: 'kv' | 'objects'): Page {
  const prefix = kind === 'kv' ? 'KV_' : 'OBJ_';
  return ({ root, live, config, onLeave }) => {
    const table = new DataTable<Bucket>(
      [
        { title: 'Account', cell: (b) => b.account, sort: (b) => b.account },
        {
          title: 'Bucket',
          cell: (b) => pageLink([kind, b.account, b.name], b.name),
          sort: (b) => b.name,
        },
        { title: 'Storage', cell: (b) => b.info.config.storage },
        {
          title: kind === 'kv' ? 'Entries' : 'Messages',
          cell: (b) => count(b.info.state.messages),
          sort: (b) => b.info.state.messages,
          numeric: true,
        },
        {
          title: 'Bytes',
          cell: (b) => bytes(b.info.state.bytes),
          sort: (b) => b.info.state.bytes,
          numeric: true,
        },
        ...(kind === 'kv'
          ? [
              {
                title: 'History',
                cell: (b: Bucket) => count(b.info.config.max_msgs_per_subject),
                numeric: true,
              },
            ]
          : []),
        { title: 'Description', cell: (b) => b.info.config.description ?? '' },
      ],
      { label: kind === 'kv' ? 'KV buckets' : 'object stores', search: (b) => b.name, sortBy: 1 },
    );
    const status = h('div');
    fill(root, section(kind === 'kv' ? 'KV buckets' : 'Object stores', status, table.element));
    let seen = '';
    const refresh = async (tick: Tick) => {
      const state = JSON.stringify(tick.jetstream ?? {});
      if (state === seen) return;
      seen = state;
      try {
        const all = await Promise.all(
          config.jetstream.map(async (account) => {
            const body = await getJson<{ streams: StreamInfo[] }>('/dashboard/api/streams', {
              account,
            });
            return body.streams
              .filter((s) => s.config.name.startsWith(prefix))
              .map((info) => ({ account, name: info.config.name.slice(prefix.length), info }));
          }),
        );
        table.rows = all.flat();
        fill(status, all.flat().length === 0 ? h('p', { class: 'muted' }, 'None.') : null);
      } catch (error) {
        seen = '';
        fill(status, errorBox(error));
      }
    };
    onLeave(live.listen((tick) => void refresh(tick)));
  };
}

/** Refreshes `load` whenever the bucket's stream changes (the page's live watch). */
export function watchStream(
  live: { listen(listener: (tick: Tick) => void): () => void },
  account: string,
  stream: string,
  load: () => Promise<void>,
  status: Element,
): () => void {
  let seen = '';
  return live.listen((tick) => {
    const state = JSON.stringify(tick.jetstream?.[account]?.[stream] ?? null);
    if (state === seen) return;
    seen = state;
    load().then(
      () => fill(status),
      (error: unknown) => {
        seen = '';
        fill(status, errorBox(error));
      },
    );
  });
}

export function backLink(kind: string, title: string): Child {
  return h('p', {}, pageLink([kind], `← ${title}`));
}
