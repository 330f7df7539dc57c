/**
 * The dashboard's entry: the navigation, the live feed, and one page at a time chosen by the
 * location's hash (`#/streams`, `#/stream/<account>/<name>`…).
 */
import { type DashboardConfig, getJson } from './api.js';
import { errorBox, fill, h, pageLink } from './dom.js';
import { Live } from './live.js';
import { accountsPage } from './pages/accounts.js';
import { bucketsPage } from './pages/buckets.js';
import { connectionsPage } from './pages/connections.js';
import { kvPage } from './pages/kv.js';
import { objectsPage } from './pages/objects.js';
import { overviewPage } from './pages/overview.js';
import type { Page } from './pages/page.js';
import { streamPage } from './pages/stream.js';
import { streamsPage } from './pages/streams.js';
import { subjectsPage } from './pages/subjects.js';

const NAV: readonly [string, string][] = [
  ['', 'Overview'],
  ['connections', 'Connections'],
  ['subjects', 'Subjects'],
  ['streams', 'Streams'],
  ['kv', 'KV'],
  ['objects', 'Objects'],
  ['accounts', 'Accounts'],
];

/** A page by the first part of the route; with more parts, the page of one item. */
function route(parts: readonly string[]): Page {
  const [name = '', ...rest] = parts;
  if (name === 'stream' || (name === 'streams' && rest.length > 0)) return streamPage;
  if (name === 'kv') return rest.length > 0 ? kvPage : bucketsPage('kv');
  if (name === 'objects') return rest.length > 0 ? objectsPage : bucketsPage('objects');
  return (
    {
      connections: connectionsPage,
      subjects: subjectsPage,
      streams: streamsPage,
      accounts: accountsPage,
    }[name] ?? overviewPage
  );
}

const RAW_ENDPOINTS = [
  'varz',
  'connz',
  'subsz',
  'jsz',
  'accountz',
  'accstatz',
  'routez',
  'gatewayz',
  'leafz',
  'healthz',
];

async function start(): Promise<void> {
  const main = document.getElementById('main')!;
  const nav = document.getElementById('nav')!;
  const liveBadge = document.getElementById('live')!;
  fill(
    document.getElementById('raw')!,
    'JSON: ',
    ...RAW_ENDPOINTS.flatMap((path) => [h('a', { href: `/${path}` }, `/${path}`), ' ']),
  );
  let config: DashboardConfig;
  try {
    config = await getJson<DashboardConfig>('/dashboard/api/config');
  } catch (error) {
    fill(main, errorBox(error));
    return;
  }
  const live = new Live((online) => {
    liveBadge.textContent = online ? 'live' : 'offline';
    liveBadge.classList.toggle('online', online);
  });
  let leave: (() => void)[] = [];
  const show = () => {
    for (const cleanup of leave) cleanup();
    leave = [];
    const parts = location.hash
      .replace(/^#\/?/, '')
      .split('/')
      .filter(Boolean)
      .map((part) => decodeURIComponent(part));
    const current = parts[0] === 'stream' ? 'streams' : (parts[0] ?? '');
    fill(
      nav,
      ...NAV.map(([path, title]) => {
        const link = pageLink(path ? [path] : [], title);
        if (path === current) link.setAttribute('aria-current', 'page');
        return link;
      }),
    );
    const page = route(parts);
    const root = h('div', { class: 'page' });
    fill(main, root);
    page({ root, live, config, args: parts.slice(1), onLeave: (cleanup) => leave.push(cleanup) });
    document.title = `${NAV.find(([path]) => path === current)?.[1] ?? 'Slipstream'} · Slipstream`;
  };
  window.addEventListener('hashchange', show);
  show();
}

void start();
