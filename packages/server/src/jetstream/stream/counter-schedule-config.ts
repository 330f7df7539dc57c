/**
 * The config rules of two 2.12 stream toggles, `allow_msg_counter` (counters) and
 * `allow_msg_schedules` (message schedules), as checkStreamCfg and the update check have them
 * (v2.12.1 stream.go:1621-1633, :1654-1661, :1724-1731, :1808-1812, :2147-2155; v2.14.2
 * stream.go:1793-1803 adds the refusal of discard new for schedules).
 */
import { ApiError, jsErrors, type StreamConfig } from '@slipstream/jsapi';

const invalid = (err: string) => ApiError.of(jsErrors.JSStreamInvalidConfigF, { err });

/**
 * What create and update refuse: a counter stream with discard new, message TTLs, schedules or
 * another retention than limits; schedules with discard new; either on a mirror, schedules on a
 * stream with sources. Schedules need roll-ups (a schedule replaces the one before it on its
 * subject): turned on unless `pedantic`, which refuses instead.
 */
export function checkCounterAndScheduleToggles(config: StreamConfig, pedantic: boolean): void {
  if (config.allow_msg_counter) {
    if (config.discard === 'new') throw invalid('counter stream cannot use discard new');
    if (config.allow_msg_ttl) throw invalid('counter stream cannot use message TTLs');
    // v2.14.2 stream.go:1755 (2.12 let the two meet).
    if (config.allow_msg_schedules) throw invalid('counter stream cannot use message schedules');
    if ((config.retention ?? 'limits') !== 'limits') {
      throw invalid('counter stream can only use limits retention');
    }
  }
  if (config.allow_msg_schedules) {
    if (config.discard === 'new') throw invalid('message scheduling cannot use discard new');
    if (!config.allow_rollup_hdrs) {
      if (pedantic) throw invalid('message scheduling cannot be set if roll-ups are disabled');
      config.allow_rollup_hdrs = true;
      config.deny_purge = false;
    }
  }
  if (config.mirror) {
    if (config.allow_msg_counter) throw ApiError.of(jsErrors.JSMirrorWithCountersErr);
    if (config.allow_msg_schedules) throw ApiError.of(jsErrors.JSMirrorWithMsgSchedulesErr);
  }
  if (config.sources?.length && config.allow_msg_schedules) {
    throw ApiError.of(jsErrors.JSSourceWithMsgSchedulesErr);
  }
}

/** What an update may not do: turn counters on or off, or turn schedules off. */
export function checkCounterAndScheduleUpdate(config: StreamConfig, old: StreamConfig): void {
  if ((config.allow_msg_counter ?? false) !== (old.allow_msg_counter ?? false)) {
    throw invalid('stream configuration update can not change message counter setting');
  }
  if (old.allow_msg_schedules && !config.allow_msg_schedules) {
    throw invalid('message schedules can not be disabled');
  }
}
