import { type Child, fill, h, section } from '../dom.js';
import { bytes, count, duration, rate } from '../format.js';
import type { Rates, Tick, Varz } from '../live.js';
import { sparkline } from '../sparkline.js';
import type { Page } from './page.js';

function card(label: string, value: Child, extra?: Child): HTMLElement {
  return h(
    'div',
    { class: 'card' },
    h('div', { class: 'label' }, label),
    h('div', { class: 'value' }, value),
    extra,
  );
}

function trafficCard(
  label: string,
  rates: readonly Rates[],
  pick: (r: Rates) => number,
  format: (n: number) => string,
) {
  const values = rates.map(pick);
  const now = values.at(-1) ?? 0;
  return card(label, format(now), sparkline(values, `${label}, last minute`));
}

/** When JetStream syncs its files: before each PubAck, or every interval. */
function syncMode(v: Varz): string {
  const config = v.jetstream?.config;
  if (!config) return '';
  return config.sync_interval ? `every ${duration(config.sync_interval / 1e6)}` : 'before each ack';
}

/** Version, uptime, counts and live traffic, from the live feed alone. */
export const overviewPage: Page = ({ root, live, onLeave }) => {
  const body = h('div', { class: 'cards', 'data-testid': 'overview' });
  const js = h('div');
  fill(root, section('Server', body), js);
  const draw = (tick: Tick) => {
    const v = tick.varz;
    const rates = live.rates;
    fill(
      body,
      card('Server', v.server_name, h('div', { class: 'muted small' }, v.server_id)),
      card(
        'Version',
        v.slipstream_version ?? v.version,
        h('div', { class: 'muted small' }, `NATS ${v.version}`),
      ),
      card('Uptime', v.uptime),
      card(
        'Connections',
        count(v.connections),
        h('div', { class: 'muted small' }, `${count(v.total_connections)} total`),
      ),
      card('Subscriptions', count(v.subscriptions)),
      card('Slow consumers', count(v.slow_consumers)),
      card('Memory', bytes(v.mem)),
      card('CPU', `${v.cpu.toFixed(1)}%`, h('div', { class: 'muted small' }, `${v.cores} cores`)),
      trafficCard('Messages in', rates, (r) => r.inMsgs, rate),
      trafficCard('Messages out', rates, (r) => r.outMsgs, rate),
      trafficCard(
        'Bytes in',
        rates,
        (r) => r.inBytes,
        (n) => `${bytes(n)}/s`,
      ),
      trafficCard(
        'Bytes out',
        rates,
        (r) => r.outBytes,
        (n) => `${bytes(n)}/s`,
      ),
      card(
        'Total in',
        `${count(v.in_msgs)} msgs`,
        h('div', { class: 'muted small' }, bytes(v.in_bytes)),
      ),
      card(
        'Total out',
        `${count(v.out_msgs)} msgs`,
        h('div', { class: 'muted small' }, bytes(v.out_bytes)),
      ),
    );
    if (!tick.jetstream) {
      fill(js);
      return;
    }
    const streams = Object.values(tick.jetstream).flatMap((s) => Object.values(s));
    const sum = (pick: (s: (typeof streams)[number]) => number) =>
      streams.reduce((a, s) => a + pick(s), 0);
    fill(
      js,
      section(
        'JetStream',
        h(
          'div',
          { class: 'cards' },
          card('Streams', count(streams.length)),
          card('Consumers', count(sum((s) => s.consumer_count))),
          card('Messages', count(sum((s) => s.messages))),
          card('Stored', bytes(sum((s) => s.bytes))),
          card('Sync to disk', syncMode(v)),
          card(
            'API requests',
            count(v.jetstream?.stats?.api?.total ?? 0),
            h(
              'div',
              { class: 'muted small' },
              `${count(v.jetstream?.stats?.api?.errors ?? 0)} errors`,
            ),
          ),
        ),
      ),
    );
  };
  onLeave(live.listen(draw));
};
