/**
 * Cron patterns of message schedules (nats-server 2.14, v2.14.2 server/cron.go): six fields,
 * `second minute hour day-of-month month day-of-week`, each a comma list of `*` or `?`, a
 * number or name (`jan`, `mon`), a range `a-b`, with an optional step `/n` (`n/step` meaning
 * `n-max/step`). When both day fields are restricted a day matching either fires; when either
 * is `*`, both must match. Times are wall-clock times in an IANA time zone (UTC when none),
 * read through Node's Intl; the next firing is searched for up to five years ahead.
 */

interface Bounds {
  readonly min: number;
  readonly max: number;
  readonly names?: Readonly<Record<string, number>>;
}

const SECONDS: Bounds = { min: 0, max: 59 };
const MINUTES: Bounds = { min: 0, max: 59 };
const HOURS: Bounds = { min: 0, max: 23 };
const DAYS_OF_MONTH: Bounds = { min: 1, max: 31 };
const MONTHS: Bounds = {
  min: 1,
  max: 12,
  names: {
    jan: 1,
    feb: 2,
    mar: 3,
    apr: 4,
    may: 5,
    jun: 6,
    jul: 7,
    aug: 8,
    sep: 9,
    oct: 10,
    nov: 11,
    dec: 12,
  },
};
const DAYS_OF_WEEK: Bounds = {
  min: 0,
  max: 6,
  names: { sun: 0, mon: 1, tue: 2, wed: 3, thu: 4, fri: 5, sat: 6 },
};

/** One field: the values it allows, and whether it was a `*` (which changes how days combine). */
interface Field {
  readonly allows: ReadonlySet<number>;
  readonly star: boolean;
}

/** A parsed six-field pattern. */
export interface CronPattern {
  readonly second: Field;
  readonly minute: Field;
  readonly hour: Field;
  readonly dayOfMonth: Field;
  readonly month: Field;
  readonly dayOfWeek: Field;
}

/** The pattern's fields, or undefined for a pattern nats-server refuses. */
export function parseCron(pattern: string): CronPattern | undefined {
  const fields = pattern.split(/\s+/).filter((field) => field !== '');
  if (fields.length !== 6) return undefined;
  const bounds = [SECONDS, MINUTES, HOURS, DAYS_OF_MONTH, MONTHS, DAYS_OF_WEEK];
  const parsed = fields.map((field, i) => parseField(field, bounds[i]!));
  if (parsed.some((field) => field === undefined)) return undefined;
  const [second, minute, hour, dayOfMonth, month, dayOfWeek] = parsed as Field[];
  return {
    second: second!,
    minute: minute!,
    hour: hour!,
    dayOfMonth: dayOfMonth!,
    month: month!,
    dayOfWeek: dayOfWeek!,
  };
}

function parseField(field: string, bounds: Bounds): Field | undefined {
  const allows = new Set<number>();
  let star = false;
  for (const expression of field.split(',')) {
    if (expression === '') continue;
    const range = parseRange(expression, bounds);
    if (!range) return undefined;
    for (const value of range.values) allows.add(value);
    star ||= range.star;
  }
  return { allows, star };
}

function parseRange(
  expression: string,
  bounds: Bounds,
): { values: number[]; star: boolean } | undefined {
  const rangeAndStep = expression.split('/');
  if (rangeAndStep.length > 2) return undefined;
  const lowAndHigh = rangeAndStep[0]!.split('-');
  let start: number | undefined;
  let end: number | undefined;
  let star = false;
  if (lowAndHigh[0] === '*' || lowAndHigh[0] === '?') {
    start = bounds.min;
    end = bounds.max;
    star = true;
  } else {
    if (lowAndHigh.length > 2) return undefined;
    start = fieldValue(lowAndHigh[0]!, bounds);
    end = lowAndHigh.length === 2 ? fieldValue(lowAndHigh[1]!, bounds) : start;
  }
  let step = 1;
  if (rangeAndStep.length === 2) {
    step = fieldValue(rangeAndStep[1]!) ?? -1;
    // A single value with a step runs to the end of the field.
    if (lowAndHigh.length === 1) end = bounds.max;
    if (step > 1) star = false;
  }
  if (start === undefined || end === undefined || step < 0) return undefined;
  if (start < bounds.min || end > bounds.max || start > end || step === 0) return undefined;
  const values: number[] = [];
  for (let value = start; value <= end; value += step) values.push(value);
  return { values, star };
}

/** A name of the field, or a non-negative decimal number (Go's strconv.Atoi). */
function fieldValue(text: string, bounds?: Bounds): number | undefined {
  const named = bounds?.names?.[text.toLowerCase()];
  if (named !== undefined) return named;
  if (!/^[+-]?\d+$/.test(text)) return undefined;
  const value = Number(text);
  return value < 0 || !Number.isSafeInteger(value) ? undefined : value;
}

/**
 * The first time after `afterMs` (milliseconds since the epoch) the pattern fires, in `zone`
 * (UTC when undefined); undefined when none within five years.
 */
export function nextCronTime(
  pattern: CronPattern,
  afterMs: number,
  zone?: string,
): number | undefined {
  // The search walks wall-clock time, kept as a UTC Date whose fields are the zone's.
  const wall = new Date(Math.floor(wallClock(afterMs, zone) / 1000) * 1000 + 1000);
  const yearLimit = wall.getUTCFullYear() + 5;
  let truncated = false;
  wrap: for (;;) {
    if (wall.getUTCFullYear() > yearLimit) return undefined;
    while (!pattern.month.allows.has(wall.getUTCMonth() + 1)) {
      if (!truncated) {
        truncated = true;
        wall.setUTCDate(1);
        wall.setUTCHours(0, 0, 0, 0);
      }
      wall.setUTCMonth(wall.getUTCMonth() + 1);
      if (wall.getUTCMonth() === 0) continue wrap;
    }
    while (!dayMatches(pattern, wall)) {
      if (!truncated) {
        truncated = true;
        wall.setUTCHours(0, 0, 0, 0);
      }
      wall.setUTCDate(wall.getUTCDate() + 1);
      if (wall.getUTCDate() === 1) continue wrap;
    }
    while (!pattern.hour.allows.has(wall.getUTCHours())) {
      if (!truncated) {
        truncated = true;
        wall.setUTCMinutes(0, 0, 0);
      }
      wall.setUTCHours(wall.getUTCHours() + 1);
      if (wall.getUTCHours() === 0) continue wrap;
    }
    while (!pattern.minute.allows.has(wall.getUTCMinutes())) {
      if (!truncated) {
        truncated = true;
        wall.setUTCSeconds(0, 0);
      }
      wall.setUTCMinutes(wall.getUTCMinutes() + 1);
      if (wall.getUTCMinutes() === 0) continue wrap;
    }
    while (!pattern.second.allows.has(wall.getUTCSeconds())) {
      truncated = true;
      wall.setUTCSeconds(wall.getUTCSeconds() + 1);
      if (wall.getUTCSeconds() === 0) continue wrap;
    }
    return instantOf(wall.getTime(), zone);
  }
}

function dayMatches(pattern: CronPattern, wall: Date): boolean {
  const dayOfMonth = pattern.dayOfMonth.allows.has(wall.getUTCDate());
  const dayOfWeek = pattern.dayOfWeek.allows.has(wall.getUTCDay());
  if (pattern.dayOfMonth.star || pattern.dayOfWeek.star) return dayOfMonth && dayOfWeek;
  return dayOfMonth || dayOfWeek;
}

const formats = new Map<string, Intl.DateTimeFormat>();

/** Whether Intl knows `zone` as an IANA time zone name. */
export function isKnownTimeZone(zone: string): boolean {
  try {
    formatterOf(zone);
    return true;
  } catch {
    return false;
  }
}

function formatterOf(zone: string): Intl.DateTimeFormat {
  let format = formats.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formats.set(zone, format);
  }
  return format;
}

/** The wall-clock time in `zone` at instant `ms`, as milliseconds of a UTC Date with those fields. */
export function wallClock(ms: number, zone: string | undefined): number {
  if (!zone) return ms;
  const parts: Record<string, number> = {};
  for (const { type, value } of formatterOf(zone).formatToParts(ms)) parts[type] = Number(value);
  const seconds = Date.UTC(
    parts.year!,
    parts.month! - 1,
    parts.day!,
    parts.hour!,
    parts.minute!,
    parts.second!,
  );
  return seconds + (((ms % 1000) + 1000) % 1000);
}

/** The instant whose wall-clock time in `zone` is `wall` (the later offset across a change). */
function instantOf(wall: number, zone: string | undefined): number {
  if (!zone) return wall;
  const first = wall - (wallClock(wall, zone) - wall);
  const offset = wallClock(first, zone) - first;
  return wall - offset;
}

/** Minutes east of UTC that `zone` is at instant `ms`. */
export function zoneOffsetMinutes(ms: number, zone: string | undefined): number {
  return Math.round((wallClock(ms, zone) - ms) / 60_000);
}
