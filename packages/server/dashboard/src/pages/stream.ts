import { act, getJson } from '../api.js';
import { contentsNote, errorBox, facts, fill, h, pageLink, section } from '../dom.js';
import { bytes, count, limit, nanos, time } from '../format.js';
import type { Tick } from '../live.js';
import { messageView } from '../message-view.js';
import { DataTable } from '../table.js';
import type { ConsumerInfo, StoredMessage, StreamInfo } from './jetstream-types.js';
import type { Page } from './page.js';

const PAGE_SIZE = 25;

/** One stream: its config and state, its consumers, and its messages page by page. */
export const streamPage: Page = ({ root, live, config, args, onLeave }) => {
  const [account = '', name = ''] = args;
  const status = h('div');
  const summary = h('div');
  const actions = h('div', { class: 'actions' });
  const consumers = new DataTable<ConsumerInfo>(
    [
      { title: 'Name', cell: (c) => c.name, sort: (c) => c.name },
      { title: 'Kind', cell: (c) => (c.config.deliver_subject ? 'push' : 'pull') },
      {
        title: 'Filter',
        cell: (c) => c.config.filter_subject ?? (c.config.filter_subjects ?? []).join(', '),
      },
      { title: 'Ack', cell: (c) => c.config.ack_policy },
      {
        title: 'Pending',
        cell: (c) => count(c.num_pending),
        sort: (c) => c.num_pending,
        numeric: true,
      },
      {
        title: 'Ack pending',
        cell: (c) => count(c.num_ack_pending),
        sort: (c) => c.num_ack_pending,
        numeric: true,
      },
      { title: 'Ack floor', cell: (c) => count(c.ack_floor.stream_seq), numeric: true },
      { title: 'Delivered', cell: (c) => count(c.delivered.stream_seq), numeric: true },
      {
        title: 'Redelivered',
        cell: (c) => count(c.num_redelivered),
        sort: (c) => c.num_redelivered,
        numeric: true,
      },
      { title: 'Waiting pulls', cell: (c) => count(c.num_waiting), numeric: true },
      { title: 'Paused', cell: (c) => (c.paused ? 'yes' : '') },
      ...(config.actions
        ? [
            {
              title: '',
              cell: (c: ConsumerInfo) =>
                h(
                  'button',
                  {
                    type: 'button',
                    class: 'danger',
                    onclick: () =>
                      confirmed(`Delete consumer "${c.name}" of stream "${name}"?`, () =>
                        act('delete-consumer', { account, stream: name, consumer: c.name }),
                      ),
                  },
                  'Delete',
                ),
            },
          ]
        : []),
    ],
    { label: 'consumers', search: (c) => c.name, sortBy: 0 },
  );

  // The message browser: a page from `start`, or the newest page while following.
  let follow = true;
  let start = 1;
  let subject = '';
  let lastSeq = 0;
  let firstSeq = 1;
  const list = h('div', { class: 'messages', 'data-testid': 'messages' });
  const position = h('span', { class: 'muted' });
  const seqInput = h('input', {
    type: 'number',
    min: 1,
    placeholder: 'from sequence',
    'aria-label': 'From sequence',
  });
  const subjectInput = h('input', {
    type: 'search',
    placeholder: 'subject filter (wildcards)',
    'aria-label': 'Subject filter',
  });
  const controls = h(
    'form',
    {
      class: 'controls',
      onsubmit: (event: Event) => {
        event.preventDefault();
        subject = subjectInput.value.trim();
        const from = Number(seqInput.value);
        follow = !from;
        start = from || 1;
        void loadMessages();
      },
    },
    subjectInput,
    seqInput,
    h('button', { type: 'submit' }, 'Show'),
    h('button', { type: 'button', onclick: () => page(-1) }, '◀ Older'),
    h('button', { type: 'button', onclick: () => page(1) }, 'Newer ▶'),
    h(
      'button',
      {
        type: 'button',
        onclick: () => {
          follow = true;
          void loadMessages();
        },
      },
      'Latest',
    ),
    position,
  );
  let shown: StoredMessage[] = [];
  const page = (direction: number) => {
    follow = false;
    start = Math.max(
      firstSeq,
      direction > 0 ? (shown.at(-1)?.seq ?? start) + 1 : start - PAGE_SIZE,
    );
    void loadMessages();
  };
  const loadMessages = async () => {
    if (follow) start = Math.max(firstSeq, lastSeq - PAGE_SIZE + 1);
    try {
      const body = await getJson<{ messages: StoredMessage[] }>('/dashboard/api/messages', {
        account,
        stream: name,
        seq: start,
        subject,
        limit: PAGE_SIZE,
      });
      shown = body.messages;
      const open = new Set(
        [...list.querySelectorAll('details[open]')].map((d) => d.getAttribute('data-seq')),
      );
      // Newest first.
      fill(list, ...[...shown].reverse().map((m) => messageView(m, open.has(String(m.seq)))));
      if (shown.length === 0) fill(list, h('p', { class: 'muted' }, 'No messages here.'));
      position.textContent = shown.length
        ? `#${shown[0]!.seq}–#${shown.at(-1)!.seq}${follow ? ' (following)' : ''}`
        : '';
    } catch (error) {
      fill(list, errorBox(error));
    }
  };

  const confirmed = async (question: string, run: () => Promise<void>) => {
    if (!window.confirm(question)) return;
    try {
      await run();
      seen = '';
    } catch (error) {
      fill(status, errorBox(error));
    }
  };

  fill(
    root,
    h('p', {}, pageLink(['streams'], '← Streams')),
    h('h1', {}, name),
    status,
    section('Stream', summary, actions),
    section('Consumers', consumers.element),
    config.contents ? section('Messages', controls, list) : section('Messages', contentsNote()),
  );

  let seen = '';
  const refresh = async (tick: Tick) => {
    const state = JSON.stringify(tick.jetstream?.[account]?.[name] ?? null);
    if (state === seen) return;
    seen = state;
    try {
      const { info, consumers: found } = await getJson<{
        info: StreamInfo;
        consumers: ConsumerInfo[];
      }>('/dashboard/api/stream', { account, stream: name });
      drawSummary(info);
      consumers.rows = found;
      const moved = info.state.last_seq !== lastSeq || info.state.first_seq !== firstSeq;
      lastSeq = info.state.last_seq;
      firstSeq = Math.max(1, info.state.first_seq);
      if (config.contents && follow && (moved || shown.length === 0)) await loadMessages();
      fill(status);
    } catch (error) {
      seen = '';
      fill(status, errorBox(error));
    }
  };

  const drawSummary = (info: StreamInfo) => {
    const c = info.config;
    const s = info.state;
    fill(
      summary,
      facts([
        ['Account', account],
        [
          'Subjects',
          (c.subjects ?? []).join(', ') || (c.mirror ? `mirror of ${c.mirror.name}` : ''),
        ],
        ['Description', c.description ?? ''],
        [
          'Storage',
          `${c.storage}${c.compression && c.compression !== 'none' ? ` (${c.compression})` : ''}`,
        ],
        ['Retention / discard', `${c.retention} / ${c.discard}`],
        ['Messages', count(s.messages)],
        ['Bytes', bytes(s.bytes)],
        ['Sequences', `${count(s.first_seq)} – ${count(s.last_seq)}`],
        ['First / last', `${time(s.first_ts)} / ${time(s.last_ts)}`],
        ['Deleted', count(s.num_deleted ?? 0)],
        ['Subjects stored', count(s.num_subjects ?? 0)],
        ['Max messages', limit(c.max_msgs)],
        ['Max bytes', limit(c.max_bytes, bytes)],
        ['Max age', nanos(c.max_age)],
        ['Max per subject', limit(c.max_msgs_per_subject)],
        ['Replicas', count(c.num_replicas)],
        ['Created', time(info.created)],
        [
          'Lost',
          s.lost?.msgs?.length
            ? h('span', { class: 'bad' }, `${s.lost.msgs.length} messages`)
            : 'none',
        ],
      ]),
    );
    fill(
      actions,
      config.actions && !c.deny_purge
        ? h(
            'button',
            {
              type: 'button',
              class: 'danger',
              onclick: () =>
                confirmed(`Purge every message of stream "${name}"?`, () =>
                  act('purge-stream', { account, stream: name }),
                ),
            },
            'Purge stream',
          )
        : null,
    );
  };

  onLeave(live.listen((tick) => void refresh(tick)));
};
