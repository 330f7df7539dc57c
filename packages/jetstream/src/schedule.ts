/**
 * Message schedules on publish (nats-server 2.12 `@at`, 2.14 the repeating forms; ADR-51), with
 * nats.js v3's option names: `schedule` publishes a schedule on the message's subject, which the
 * stream (with `allow_msg_schedules`) fires onto `target`; `cancelSchedule` removes one as part
 * of a publish.
 */
import { parseGoDuration } from '@slipstream/jsapi';
import { JetStreamError } from './errors.js';

/** The cron shorthands nats-server knows (2.14). */
export type PredefinedSchedule =
  | '@yearly'
  | '@annually'
  | '@monthly'
  | '@weekly'
  | '@daily'
  | '@midnight'
  | '@hourly';

/**
 * When a schedule fires: once `at` an instant (2.12); or repeatedly (2.14) `every` Go duration
 * of at least a second, on a six-field `cron` (`sec min hour day-of-month month day-of-week`), or
 * on a `predefined` shorthand.
 */
export type ScheduleSpec =
  | { at: Date | string }
  | { every: string }
  | { cron: string }
  | { predefined: PredefinedSchedule };

export interface ScheduleOptions {
  /** A ScheduleSpec, a Date (fire once then), or the raw `Nats-Schedule` value. */
  specification: string | Date | ScheduleSpec;
  /** The subject the fired message is stored on (in the same stream, not the schedule's own). */
  target: string;
  /** Fire the last message of this subject instead of the schedule's own payload and headers. */
  source?: string;
  /** The fired message's `Nats-TTL` (the stream needs `allow_msg_ttl`). */
  ttl?: string;
  /** An IANA time zone for cron and predefined schedules (2.14), e.g. `"Europe/Amsterdam"`. */
  timezone?: string;
  /** `"sub"`: each fired message replaces the target subject's previous one (2.14). */
  rollup?: 'sub';
}

/** A publish that also removes the schedule on `scheduleSubject` (2.14). */
export interface ScheduleCancellation {
  scheduleSubject: string;
}

/** The schedule headers, as nats.js names them on PubHeaders. */
export const ScheduleHeaders = {
  Schedule: 'Nats-Schedule',
  ScheduleTarget: 'Nats-Schedule-Target',
  ScheduleSource: 'Nats-Schedule-Source',
  ScheduleTTL: 'Nats-Schedule-TTL',
  ScheduleTimeZone: 'Nats-Schedule-Time-Zone',
  ScheduleRollup: 'Nats-Schedule-Rollup',
  /** On a fired message: the schedule's subject; with ScheduleNext `purge`, a cancellation. */
  Scheduler: 'Nats-Scheduler',
  /** On a fired message: the next firing (RFC 3339), or `purge` after a one-off. */
  ScheduleNext: 'Nats-Schedule-Next',
} as const;

/**
 * The `Nats-Schedule` value of a specification: `@at <ISO time>`, `@every <duration>`, the cron
 * pattern or shorthand; a string is taken as it is. An `every` under a second is refused here,
 * as the server would.
 */
export function scheduleSpecToHeader(spec: string | Date | ScheduleSpec): string {
  if (typeof spec === 'string') return spec;
  if (spec instanceof Date) return `@at ${spec.toISOString()}`;
  if ('at' in spec) return `@at ${spec.at instanceof Date ? spec.at.toISOString() : spec.at}`;
  if ('every' in spec) {
    const nanos = parseGoDuration(spec.every.trim());
    if (nanos === undefined || nanos < 1_000_000_000) {
      throw new JetStreamError(`schedule 'every' must be a duration of at least 1s: ${spec.every}`);
    }
    return `@every ${spec.every.trim()}`;
  }
  if ('cron' in spec) return spec.cron;
  if ('predefined' in spec) return spec.predefined;
  throw new JetStreamError('invalid schedule specification');
}

/** The headers of a publish's `schedule` or `cancelSchedule` option (never both). */
export function scheduleHeaderEntries(
  schedule: ScheduleOptions | undefined,
  cancel: ScheduleCancellation | undefined,
): [string, string | undefined][] {
  if (schedule && cancel) {
    throw new JetStreamError('schedule and cancelSchedule are mutually exclusive');
  }
  if (cancel) {
    return [
      [ScheduleHeaders.Scheduler, cancel.scheduleSubject],
      [ScheduleHeaders.ScheduleNext, 'purge'],
    ];
  }
  if (!schedule) return [];
  return [
    [ScheduleHeaders.Schedule, scheduleSpecToHeader(schedule.specification)],
    [ScheduleHeaders.ScheduleTarget, schedule.target],
    [ScheduleHeaders.ScheduleSource, schedule.source],
    [ScheduleHeaders.ScheduleTTL, schedule.ttl],
    [ScheduleHeaders.ScheduleTimeZone, schedule.timezone],
    [ScheduleHeaders.ScheduleRollup, schedule.rollup],
  ];
}
