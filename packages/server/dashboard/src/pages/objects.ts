import { downloadUrl, getJson } from '../api.js';
import { contentsNote, fill, h, section } from '../dom.js';
import { bytes, count, time } from '../format.js';
import { DataTable } from '../table.js';
import { backLink, watchStream } from './buckets.js';
import type { Page } from './page.js';

interface ObjectMeta {
  name: string;
  size?: number;
  chunks?: number;
  mtime?: string;
  digest?: string;
  description?: string;
}

/** One object store: its objects with size, chunks, digest and a download link. */
export const objectsPage: Page = ({ root, live, config, args, onLeave }) => {
  const [account = '', bucket = ''] = args;
  if (!config.contents) {
    fill(
      root,
      backLink('objects', 'Object stores'),
      h('h1', {}, bucket),
      section('Objects', contentsNote()),
    );
    return;
  }
  const status = h('div');
  const table = new DataTable<ObjectMeta>(
    [
      { title: 'Name', cell: (o) => o.name, sort: (o) => o.name },
      { title: 'Size', cell: (o) => bytes(o.size ?? 0), sort: (o) => o.size ?? 0, numeric: true },
      { title: 'Chunks', cell: (o) => count(o.chunks ?? 0), numeric: true },
      { title: 'Modified', cell: (o) => time(o.mtime), sort: (o) => o.mtime ?? '' },
      { title: 'Digest', cell: (o) => h('code', {}, o.digest ?? '') },
      {
        title: '',
        cell: (o) =>
          h(
            'a',
            {
              href: downloadUrl('/dashboard/api/object', { account, bucket, name: o.name }),
              download: o.name,
            },
            'Download',
          ),
      },
    ],
    { label: 'objects', search: (o) => o.name, sortBy: 0 },
  );
  fill(
    root,
    backLink('objects', 'Object stores'),
    h('h1', {}, bucket),
    status,
    section('Objects', table.element),
  );
  const load = async () => {
    const body = await getJson<{ objects: ObjectMeta[] }>('/dashboard/api/objects', {
      account,
      bucket,
    });
    table.rows = body.objects;
  };
  onLeave(watchStream(live, account, `OBJ_${bucket}`, load, status));
};
