import type { MsgHdrs } from '@slipstream/client';
import type { StoredMsg } from '@slipstream/jetstream';
import { color } from './style.js';

/** The parts of a message (core, stored or consumed) that the commands print. */
export interface ShownMessage {
  subject: string;
  reply?: string;
  headers?: MsgHdrs;
  data: Uint8Array;
  /** Stream sequence and time, for messages read from a stream. */
  seq?: number;
  time?: Date;
}

/** A message read from a stream (`stream get`, `stream view`). */
export function fromStream(msg: StoredMsg): ShownMessage {
  return {
    subject: msg.subject,
    headers: msg.header,
    data: msg.data,
    seq: msg.seq,
    time: msg.time,
  };
}

/** How `sub`, `req`, `stream get` and `consumer next` print a message. */
export type MessageStyle = 'human' | 'raw' | 'json';

export function messageStyle(options: { raw?: boolean }, json: boolean): MessageStyle {
  if (json) return 'json';
  return options.raw ? 'raw' : 'human';
}

const decoder = new TextDecoder();

/**
 * One message as text: `raw` is the body alone; `json` one line (for `jq`), the body as a
 * UTF-8 string; `human` a heading, the headers, then the body, as the nats CLI prints them.
 */
export function formatMessage(message: ShownMessage, style: MessageStyle, heading: string): string {
  const body = decoder.decode(message.data);
  if (style === 'raw') return body;
  const headerEntries = (message.headers?.keys() ?? []).map(
    (key) => [key, message.headers?.values(key) ?? []] as const,
  );
  if (style === 'json') {
    return JSON.stringify({
      subject: message.subject,
      ...(message.reply ? { reply: message.reply } : {}),
      ...(message.seq !== undefined ? { seq: message.seq } : {}),
      ...(message.time ? { time: message.time.toISOString() } : {}),
      ...(headerEntries.length ? { headers: Object.fromEntries(headerEntries) } : {}),
      data: body,
    });
  }
  const lines = [color.bold(heading)];
  for (const [key, values] of headerEntries) {
    for (const value of values) lines.push(`${color.cyan(key)}: ${value}`);
  }
  lines.push('', body.length ? body : color.dim('(empty body)'), '');
  return lines.join('\n');
}
