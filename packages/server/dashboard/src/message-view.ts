import { h } from './dom.js';
import { base64Bytes, bytes, headerPairs, type PayloadView, payloadText, time } from './format.js';
import type { StoredMessage } from './pages/jetstream-types.js';

/**
 * One stored message: a summary line (sequence, time, subject, size) that opens onto its
 * headers and its payload, shown as text, JSON or hex.
 */
export function messageView(message: StoredMessage, open = false): HTMLElement {
  const data = base64Bytes(message.data);
  const headers = headerPairs(base64Bytes(message.hdrs));
  const payload = h('pre', { class: 'payload' });
  let view: PayloadView = 'text';
  const buttons = (['text', 'json', 'hex'] as const).map((name) =>
    h(
      'button',
      {
        type: 'button',
        class: 'view',
        'aria-pressed': String(name === view),
        onclick: () => show(name),
      },
      name.toUpperCase(),
    ),
  );
  const show = (name: PayloadView) => {
    view = name;
    payload.textContent = payloadText(data, view);
    for (const button of buttons) {
      button.setAttribute('aria-pressed', String(button.textContent === name.toUpperCase()));
    }
  };
  show(looksLikeJson(data) ? 'json' : 'text');
  return h(
    'details',
    { class: 'message', open, 'data-seq': message.seq },
    h(
      'summary',
      {},
      h('span', { class: 'seq' }, `#${message.seq}`),
      h('span', { class: 'subject' }, message.subject),
      h('span', { class: 'muted' }, `${bytes(data.length)} · ${time(message.time)}`),
    ),
    headers.length > 0
      ? h(
          'table',
          { class: 'headers', 'aria-label': 'headers' },
          h(
            'tbody',
            {},
            ...headers.map(([name, value]) => h('tr', {}, h('th', {}, name), h('td', {}, value))),
          ),
        )
      : null,
    h('div', { class: 'views' }, ...buttons),
    payload,
  );
}

function looksLikeJson(data: Uint8Array): boolean {
  const first = data.find((b) => b !== 0x20 && b !== 0x0a && b !== 0x0d && b !== 0x09);
  return first === 0x7b || first === 0x5b;
}
