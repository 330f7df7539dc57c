import type { NatsConnection } from '@slipstream/client';
import { headers, type MsgHdrs } from '@slipstream/protocol';
import { requireFeature } from './features.js';
import {
  type ScheduleCancellation,
  ScheduleHeaders,
  type ScheduleOptions,
  scheduleHeaderEntries,
} from './schedule.js';

/** What the stream must look like for a publish to be stored (checked by the server). */
export interface StreamExpectations {
  /** The stream that must capture the subject. */
  streamName: string;
  /** The stream's last sequence must be this. */
  lastSequence: number;
  /** The last sequence on this message's subject must be this (0: no message on it yet). */
  lastSubjectSequence: number;
  /** The Nats-Msg-Id of the stream's last message must be this. */
  lastMsgID: string;
}

/** The headers a JetStream publish sends; the names every JetStream client and server share. */
export const PubHeaders = {
  MsgIdHdr: 'Nats-Msg-Id',
  ExpectedStreamHdr: 'Nats-Expected-Stream',
  ExpectedLastSeqHdr: 'Nats-Expected-Last-Sequence',
  ExpectedLastMsgIdHdr: 'Nats-Expected-Last-Msg-Id',
  ExpectedLastSubjectSequenceHdr: 'Nats-Expected-Last-Subject-Sequence',
  MessageTTL: 'Nats-TTL',
  ...ScheduleHeaders,
} as const;

/** What of a publish's options travels in its headers (nats.js v3 names). */
export interface PublishHeaderOptions {
  headers: MsgHdrs;
  /** Nats-Msg-Id: a second publish with the same id within the duplicate window is dropped. */
  msgID: string;
  expect: Partial<StreamExpectations>;
  /**
   * Nats-TTL: how long this message lives, a Go duration (`"10s"`, `"1h"`) or `"never"`
   * (nats-server 2.11, on a stream with `allow_msg_ttl`).
   */
  ttl: string;
  /** Publishes a schedule (a stream with `allow_msg_schedules`, nats-server 2.12/2.14). */
  schedule: ScheduleOptions;
  /** Removes the schedule on a subject as part of this publish (nats-server 2.14). */
  cancelSchedule: ScheduleCancellation;
}

/** A JetStream publish's options: those its headers carry, and how it waits for the PubAck. */
export interface JetStreamPublishOptions extends PublishHeaderOptions {
  /** Milliseconds to wait for the PubAck (default: the client's timeout). */
  timeout: number;
  /**
   * Attempts in all while nothing answers (no responders: a stream being created or
   * recovering); default 1. A timeout is never retried.
   */
  retries: number;
}

/**
 * The caller's headers (copied, never changed) plus the message id, expectations, TTL and
 * schedule; undefined when there is nothing to send, so a plain publish stays a PUB rather than
 * an HPUB.
 * A TTL is refused before a server older than 2.11, which would keep the message for good.
 */
export function publishHeaders(
  nc: NatsConnection,
  { headers: given, msgID, expect, ttl, schedule, cancelSchedule }: Partial<PublishHeaderOptions>,
): MsgHdrs | undefined {
  if (ttl) requireFeature(nc, 'JS_MSG_TTL', "publish 'ttl'");
  const wanted: [string, string | number | undefined][] = [
    [PubHeaders.MessageTTL, ttl],
    [PubHeaders.MsgIdHdr, msgID],
    [PubHeaders.ExpectedStreamHdr, expect?.streamName],
    [PubHeaders.ExpectedLastSeqHdr, expect?.lastSequence],
    [PubHeaders.ExpectedLastSubjectSequenceHdr, expect?.lastSubjectSequence],
    [PubHeaders.ExpectedLastMsgIdHdr, expect?.lastMsgID],
    ...scheduleHeaderEntries(schedule, cancelSchedule),
  ];
  const set = wanted.filter(([, value]) => value !== undefined && value !== '');
  if (!given && set.length === 0) return undefined;
  const result = headers();
  if (given) for (const [key, values] of given) for (const v of values) result.append(key, v);
  for (const [key, value] of set) result.set(key, String(value));
  return result;
}
