/**
 * Message schedules (nats-server 2.12 `@at`, 2.14 repeating forms; ADR-51) of a stream with
 * `allow_msg_schedules`. A schedule is a message on its own subject with `Nats-Schedule` and
 * `Nats-Schedule-Target` (optionally `-Source`, `-TTL`, `-Rollup`, `-Time-Zone`); a later message on
 * that subject replaces it (the stream stores it with `Nats-Rollup: sub`). When it fires, the
 * stream stores a message on the target: the schedule's payload and headers (or those of the
 * source subject's last message), without the scheduling ones, with `Nats-Scheduler` naming the
 * schedule's subject and `Nats-Schedule-Next` saying `purge` (a one-off: storing it purges the
 * schedule, in the same commit) or the next firing. The schedules are not stored apart: they are
 * read back from the stream's messages when it opens, so a schedule outlives a restart and fires
 * once around it. Rules: v2.14.2 stream.go:6418-6595 (publish checks), scheduler.go (firing),
 * memstore.go:295-326 (what storing a message changes).
 */

import { type JsErrorEntry, jsErrors, type StreamConfig } from '@slipstream/jsapi';
import { isValidPublishSubject, subjectsCollide } from '@slipstream/protocol';
import type { Logger } from '../../logger.js';
import { afterWait } from '../../timer-delay.js';
import { headerValue, withHeaders } from '../shared/header-block.js';
import type { StoredMessage } from '../store/message-store.js';
import { InvalidTtl, parseTtl } from '../store/message-ttl.js';
import {
  type Firing,
  formatRfc3339,
  nextFiring,
  parseRfc3339,
  scheduleZone,
} from './schedule-pattern.js';

const SCHEDULE = 'Nats-Schedule';
const TARGET = 'Nats-Schedule-Target';
const SOURCE = 'Nats-Schedule-Source';
const TTL = 'Nats-Schedule-TTL';
const ROLLUP = 'Nats-Schedule-Rollup';
const TIME_ZONE = 'Nats-Schedule-Time-Zone';
const SCHEDULER = 'Nats-Scheduler';
const NEXT = 'Nats-Schedule-Next';
const PURGE = 'purge';
/** What every scheduling header starts with: a block without it needs no further look. */
const SCHEDULING_PREFIX = Buffer.from('Nats-Sched');
/** nats-server fires no sooner than this after arming, not to slow down the stream's ingest. */
const MIN_WAIT_MS = 250;

/** A published message's schedule headers: refused, or the header block to store. */
export type ScheduleAdmission =
  | { readonly refused: JsErrorEntry }
  | { readonly headers: Uint8Array | undefined };

/**
 * The checks nats-server makes of a published message's schedule headers (sourced and fired
 * messages skip them), in its order. A schedule gets `Nats-Rollup: sub`, so that it replaces the
 * one before it on its subject.
 */
export function admitSchedule(
  subject: string,
  headers: Uint8Array | undefined,
  config: StreamConfig,
  lastOf: (subject: string) => StoredMessage | undefined,
  nowMs = Date.now(),
): ScheduleAdmission {
  if (!headers || !hasSchedulingHeader(headers)) return { headers };
  const allowed = config.allow_msg_schedules ?? false;
  const refuse = (entry: JsErrorEntry): ScheduleAdmission => ({ refused: entry });
  const firing = firingOf(headers, nowMs, nowMs);
  if (firing === 'bad-zone' || firing === 'bad-pattern') {
    if (!allowed) return refuse(jsErrors.JSMessageSchedulesDisabledErr);
    return refuse(
      firing === 'bad-zone'
        ? jsErrors.JSMessageSchedulesTimeZoneInvalidErr
        : jsErrors.JSMessageSchedulesPatternInvalidErr,
    );
  }
  let admitted = headers;
  if (firing) {
    if (!allowed) return refuse(jsErrors.JSMessageSchedulesDisabledErr);
    const ttl = headerValue(headers, TTL) ?? '';
    if (ttl && !isValidTtl(ttl)) return refuse(jsErrors.JSMessageSchedulesTTLInvalidErr);
    const rollup = headerValue(headers, ROLLUP) ?? '';
    if (rollup && rollup !== 'sub') return refuse(jsErrors.JSMessageSchedulesRollupInvalidErr);
    if (ttl && !config.allow_msg_ttl) return refuse(jsErrors.JSMessageTTLDisabledErr);
    const target = headerValue(headers, TARGET) ?? '';
    if (!target || !isValidPublishSubject(target) || target === subject) {
      return refuse(jsErrors.JSMessageSchedulesTargetInvalidErr);
    }
    const source = headerValue(headers, SOURCE) ?? '';
    if (source && (source === target || source === subject || !isValidPublishSubject(source))) {
      return refuse(jsErrors.JSMessageSchedulesSourceInvalidErr);
    }
    const inStream = (s: string) => (config.subjects ?? []).some((own) => subjectsCollide(own, s));
    if (!inStream(target)) return refuse(jsErrors.JSMessageSchedulesTargetInvalidErr);
    if (source && !inStream(source)) return refuse(jsErrors.JSMessageSchedulesSourceInvalidErr);
    const existing = headerValue(headers, 'Nats-Rollup') ?? '';
    if (!existing) admitted = withHeaders(headers, [['Nats-Rollup', 'sub']]);
    else if (existing !== 'sub') return refuse(jsErrors.JSMessageSchedulesRollupInvalidErr);
  }
  const next = headerValue(headers, NEXT) ?? '';
  const scheduler = headerValue(headers, SCHEDULER) ?? '';
  if (next) {
    // A client may only use Nats-Schedule-Next to purge a schedule, which it names.
    if (next !== PURGE) return refuse(jsErrors.JSMessageSchedulesSchedulerInvalidErr);
    if (!scheduler || scheduler === subject || !isValidPublishSubject(scheduler)) {
      return refuse(jsErrors.JSMessageSchedulesSchedulerInvalidErr);
    }
    if (!allowed) return refuse(jsErrors.JSMessageSchedulesDisabledErr);
    const named = lastOf(scheduler);
    if (named && !headerValue(named.headers ?? new Uint8Array(0), SCHEDULE)) {
      return refuse(jsErrors.JSMessageSchedulesSchedulerInvalidErr);
    }
  } else if (scheduler) {
    return refuse(jsErrors.JSMessageSchedulesSchedulerInvalidErr);
  }
  return { headers: admitted };
}

function hasSchedulingHeader(block: Uint8Array): boolean {
  return Buffer.from(block.buffer, block.byteOffset, block.length).includes(SCHEDULING_PREFIX);
}

/** The schedule whose one-off firing `headers` are (`Nats-Schedule-Next: purge`), to purge. */
export function finishedSchedule(headers: Uint8Array | undefined): string | undefined {
  if (!headers || !hasSchedulingHeader(headers) || headerValue(headers, NEXT) !== PURGE) {
    return undefined;
  }
  return headerValue(headers, SCHEDULER) || undefined;
}

function isValidTtl(ttl: string): boolean {
  try {
    parseTtl(ttl);
    return true;
  } catch (error) {
    if (error instanceof InvalidTtl) return false;
    throw error;
  }
}

/** The firing a message's headers ask for, null for none, or what makes them invalid. */
function firingOf(
  headers: Uint8Array,
  fromMs: number,
  nowMs: number,
): Firing | null | 'bad-zone' | 'bad-pattern' {
  const zone = scheduleZone(headerValue(headers, TIME_ZONE));
  if (zone === 'invalid') return 'bad-zone';
  const firing = nextFiring(headerValue(headers, SCHEDULE) ?? '', zone, fromMs, nowMs);
  return firing === undefined ? 'bad-pattern' : firing;
}

/** What the schedules need from their stream. */
export interface ScheduledStream {
  /** The first stored message at or after `seq`. */
  loadNext(seq: number): StoredMessage | undefined;
  load(seq: number): StoredMessage | undefined;
  loadLast(subject: string): StoredMessage | undefined;
  /** Stores a fired message as the stream stores a sourced one (no publish checks, no reply). */
  storeFired(subject: string, headers: Uint8Array, payload: Uint8Array): void;
}

interface Pending {
  seq: number;
  /** When it fires, in milliseconds since the epoch. */
  at: number;
  /** Fired, and its message not stored yet (or refused): not fired again until it changes. */
  inflight: boolean;
}

/** The schedules of one stream, by the subject each lives on, and the one timer that fires them. */
export class MessageSchedules {
  readonly #bySubject = new Map<string, Pending>();
  #cancel: (() => void) | undefined;
  #armedAt = Number.POSITIVE_INFINITY;
  #firing = false;
  #stopped = false;

  constructor(
    private readonly stream: ScheduledStream,
    private readonly logger: Logger,
  ) {}

  /** Reads the schedules back from the stored messages, oldest first, then arms the timer. */
  recover(firstSeq: number): void {
    for (let m = this.stream.loadNext(firstSeq); m; m = this.stream.loadNext(m.seq + 1)) {
      this.#track(m.seq, m.subject, m.headers, Number(m.time / 1_000_000n));
    }
    this.#arm();
  }

  /** After the stream stored a message: a new schedule, a replaced one, or a firing's outcome. */
  stored(seq: number, subject: string, headers: Uint8Array | undefined, time: bigint): void {
    this.#track(seq, subject, headers, Number(time / 1_000_000n));
    this.#arm();
  }

  stop(): void {
    this.#stopped = true;
    this.#cancel?.();
    this.#cancel = undefined;
  }

  /** The stored message's effect on the schedules (memstore.go:310-325 at v2.14.2). */
  #track(seq: number, subject: string, headers: Uint8Array | undefined, timeMs: number): void {
    const firing = headers && headers.length > 0 ? firingOf(headers, timeMs, Date.now()) : null;
    if (firing && typeof firing === 'object') {
      this.#bySubject.set(subject, { seq, at: firing.at, inflight: false });
    } else if (!headers || !headerValue(headers, SCHEDULER)) {
      this.#bySubject.delete(subject);
    }
    const next = headers && headers.length > 0 ? headerValue(headers, NEXT) : undefined;
    const scheduler = next ? headerValue(headers!, SCHEDULER) : undefined;
    if (!scheduler) return;
    // A one-off fired: the stream purges the schedule's subject.
    if (next === PURGE) {
      this.#bySubject.delete(scheduler);
      return;
    }
    const at = parseRfc3339(next!);
    const pending = this.#bySubject.get(scheduler);
    if (pending && at !== undefined) {
      pending.at = at;
      pending.inflight = false;
    }
  }

  #arm(): void {
    if (this.#firing || this.#stopped) return;
    let earliest = Number.POSITIVE_INFINITY;
    for (const pending of this.#bySubject.values()) {
      if (!pending.inflight && pending.at < earliest) earliest = pending.at;
    }
    if (earliest === Number.POSITIVE_INFINITY) {
      this.#cancel?.();
      this.#cancel = undefined;
      this.#armedAt = earliest;
      return;
    }
    const wait = Math.max(earliest - Date.now(), MIN_WAIT_MS);
    // A timer due sooner stays: rearming later again and again could put a firing off forever.
    const due = Date.now() + wait;
    if (this.#cancel && this.#armedAt <= due) return;
    this.#cancel?.();
    this.#armedAt = due;
    let timer: NodeJS.Timeout | undefined;
    afterWait(wait, this.#fire, (armed) => {
      timer = armed;
    });
    this.#cancel = () => clearTimeout(timer);
  }

  readonly #fire = (): void => {
    this.#cancel = undefined;
    this.#armedAt = Number.POSITIVE_INFINITY;
    this.#firing = true;
    try {
      const now = Date.now();
      const due = [...this.#bySubject]
        .filter(([, pending]) => !pending.inflight && pending.at <= now)
        .sort(([, a], [, b]) => a.seq - b.seq);
      for (const [subject, pending] of due) this.#fireOne(subject, pending, now);
    } finally {
      this.#firing = false;
    }
    this.#arm();
  };

  /** Stores the message of one due schedule (scheduler.go:158-246 at v2.14.2). */
  #fireOne(subject: string, pending: Pending, now: number): void {
    const schedule = this.stream.load(pending.seq);
    const headers = schedule?.headers;
    if (!schedule || schedule.subject !== subject || !headers) {
      this.#bySubject.delete(subject);
      return;
    }
    const firing = firingOf(headers, pending.at, now);
    const ttl = headerValue(headers, TTL) ?? '';
    const target = headerValue(headers, TARGET) ?? '';
    if (!firing || typeof firing !== 'object' || (ttl && !isValidTtl(ttl)) || !target) {
      this.#bySubject.delete(subject);
      return;
    }
    const rollup = headerValue(headers, ROLLUP) ?? '';
    const sourceSubject = headerValue(headers, SOURCE);
    const content = (sourceSubject && this.stream.loadLast(sourceSubject)) || schedule;
    const added: [string, string][] = [
      [SCHEDULER, subject],
      [NEXT, firing.repeats ? formatRfc3339(firing.at, zoneOf(headers)) : PURGE],
    ];
    if (ttl) added.push(['Nats-TTL', ttl]);
    if (rollup) added.push(['Nats-Rollup', rollup]);
    const fired = withHeaders(withoutFiringHeaders(content.headers), added);
    pending.inflight = true;
    try {
      this.stream.storeFired(target, fired, content.payload);
    } catch (error) {
      this.logger.error(
        `JetStream failed to store the message of schedule '${subject}': ${(error as Error).message}`,
      );
    }
  }
}

function zoneOf(headers: Uint8Array): string | undefined {
  const zone = scheduleZone(headerValue(headers, TIME_ZONE));
  return zone === 'invalid' ? undefined : zone;
}

/**
 * The headers a fired message does not carry over: the scheduling ones (every `Nats-Schedule…`,
 * `Nats-Scheduler` included), and those that could keep it from being stored.
 */
function withoutFiringHeaders(block: Uint8Array | undefined): Uint8Array | undefined {
  if (!block || block.length === 0) return undefined;
  const lines = Buffer.from(block).toString('latin1').split('\r\n');
  const dropped = (line: string) =>
    line.startsWith('Nats-Schedule') ||
    line.startsWith('Nats-Expected-') ||
    line.startsWith('Nats-Msg-Id:') ||
    line.startsWith('Nats-TTL:') ||
    line.startsWith('Nats-Rollup:');
  const kept = lines.filter((line, i) => i === 0 || !dropped(line));
  return Buffer.from(kept.join('\r\n'), 'latin1');
}
