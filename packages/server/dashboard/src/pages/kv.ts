import { act, getJson } from '../api.js';
import { contentsNote, errorBox, fill, h, section } from '../dom.js';
import { base64Bytes, count, headerPairs, time } from '../format.js';
import { messageView } from '../message-view.js';
import { DataTable } from '../table.js';
import { backLink, watchStream } from './buckets.js';
import type { StoredMessage } from './jetstream-types.js';
import type { Page } from './page.js';

interface Key {
  key: string;
  history: number;
  last?: StoredMessage;
}

/** The operation of a KV entry: its KV-Operation header, PUT when it has none. */
function operation(message: StoredMessage | undefined): string {
  const found = headerPairs(base64Bytes(message?.hdrs)).find(([name]) => name === 'KV-Operation');
  return found?.[1] ?? 'PUT';
}

/**
 * One KV bucket: its keys with their latest entry, refreshed live as the bucket changes, and the
 * history of the key picked.
 */
export const kvPage: Page = ({ root, live, config, args, onLeave }) => {
  const [account = '', bucket = ''] = args;
  let picked: string | undefined;
  const status = h('div');
  const history = h('div', { 'data-testid': 'kv-history' });
  const table = new DataTable<Key>(
    [
      {
        title: 'Key',
        cell: (k) =>
          h('button', { type: 'button', class: 'linkish', onclick: () => pick(k.key) }, k.key),
        sort: (k) => k.key,
      },
      {
        title: 'Revision',
        cell: (k) => count(k.last?.seq),
        sort: (k) => k.last?.seq ?? 0,
        numeric: true,
      },
      { title: 'Operation', cell: (k) => operation(k.last) },
      { title: 'Value', cell: (k) => h('code', {}, preview(k.last)) },
      { title: 'History', cell: (k) => count(k.history), numeric: true },
      { title: 'Updated', cell: (k) => time(k.last?.time), sort: (k) => k.last?.time ?? '' },
      ...(config.actions
        ? [
            {
              title: '',
              cell: (k: Key) =>
                operation(k.last) === 'PUT'
                  ? h(
                      'button',
                      {
                        type: 'button',
                        class: 'danger',
                        onclick: async () => {
                          if (!window.confirm(`Delete key "${k.key}" of bucket "${bucket}"?`))
                            return;
                          try {
                            await act('delete-key', { account, bucket, key: k.key });
                          } catch (error) {
                            fill(status, errorBox(error));
                          }
                        },
                      },
                      'Delete',
                    )
                  : '',
            },
          ]
        : []),
    ],
    { label: 'keys', search: (k) => k.key, sortBy: 0 },
  );
  if (!config.contents) {
    fill(root, backLink('kv', 'KV buckets'), h('h1', {}, bucket), section('Keys', contentsNote()));
    return;
  }
  fill(
    root,
    backLink('kv', 'KV buckets'),
    h('h1', {}, bucket),
    status,
    section('Keys (live)', table.element),
    section('History', history),
  );
  const loadHistory = async () => {
    if (!picked) return;
    const body = await getJson<{ entries: StoredMessage[] }>('/dashboard/api/kv-history', {
      account,
      bucket,
      key: picked,
    });
    fill(history, h('h3', {}, picked), ...[...body.entries].reverse().map((m) => messageView(m)));
  };
  const pick = (key: string) => {
    picked = key;
    loadHistory().catch((error: unknown) => fill(history, errorBox(error)));
  };
  const load = async () => {
    const body = await getJson<{ keys: Key[] }>('/dashboard/api/kv-keys', { account, bucket });
    table.rows = body.keys;
    await loadHistory();
  };
  onLeave(watchStream(live, account, `KV_${bucket}`, load, status));
};

function preview(message: StoredMessage | undefined): string {
  const text = new TextDecoder().decode(base64Bytes(message?.data));
  return text.length > 80 ? `${text.slice(0, 80)}…` : text;
}
