import type { StreamConfig, StreamInfo } from '@slipstream/jetstream';
import { section } from './style.js';
import { formatBytes, formatCount, formatDuration } from './units.js';

const nanosToText = (nanos: number | undefined) =>
  nanos ? formatDuration(nanos / 1e6) : 'unlimited';
const yesNo = (value: boolean | undefined) => (value ? 'yes' : 'no');

/** `stream info` for a person: the configuration, then the state, as `nats stream info`. */
export function formatStreamInfo(info: StreamInfo): string {
  const c = info.config;
  const s = info.state;
  return [
    `Information for Stream ${c.name} created ${info.created}\n`,
    section('Configuration', [
      ['Description', c.description],
      ['Subjects', c.subjects?.join(', ')],
      ['Acknowledgements', yesNo(!c.no_ack)],
      ['Retention', `${c.storage} - ${c.retention}`],
      ['Replicas', c.num_replicas],
      ['Discard Policy', c.discard],
      ['Duplicate Window', nanosToText(c.duplicate_window)],
      ['Allows Msg Delete', yesNo(!c.deny_delete)],
      ['Allows Purge', yesNo(!c.deny_purge)],
      ['Allows Rollups', yesNo(c.allow_rollup_hdrs)],
      ['Allows Direct Get', yesNo(c.allow_direct)],
      ['Allows Atomic Batch Publish', yesNo(c.allow_atomic)],
      ['Maximum Messages', formatCount(c.max_msgs ?? -1)],
      ['Maximum Per Subject', formatCount(c.max_msgs_per_subject ?? -1)],
      ['Maximum Bytes', formatBytes(c.max_bytes ?? -1)],
      ['Maximum Age', nanosToText(c.max_age)],
      ['Maximum Message Size', formatBytes(c.max_msg_size ?? -1)],
      ['Maximum Consumers', formatCount(c.max_consumers ?? -1)],
    ]),
    section('State', [
      ['Messages', formatCount(s.messages)],
      ['Bytes', formatBytes(s.bytes)],
      ['First Sequence', s.messages ? `${s.first_seq} @ ${s.first_ts}` : s.first_seq],
      ['Last Sequence', s.messages ? `${s.last_seq} @ ${s.last_ts}` : s.last_seq],
      ['Deleted Messages', s.num_deleted ? formatCount(s.num_deleted) : undefined],
      ['Active Consumers', formatCount(s.consumer_count)],
      [
        'Number of Subjects',
        s.num_subjects === undefined ? undefined : formatCount(s.num_subjects),
      ],
    ]),
  ].join('\n');
}

/** The fields `stream edit` changed, one `field: old → new` line each. */
export function configChanges(before: StreamConfig, after: StreamConfig): string[] {
  const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
  const lines: string[] = [];
  for (const key of keys) {
    const was = JSON.stringify((before as Record<string, unknown>)[key]);
    const now = JSON.stringify((after as Record<string, unknown>)[key]);
    if (was !== now) lines.push(`${key}: ${was ?? 'unset'} → ${now ?? 'unset'}`);
  }
  return lines;
}
