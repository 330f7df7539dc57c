import { encodeSubject } from '@slipstream/protocol';

/**
 * Where the server's log lines go. The server decides what to log from its `debug`/`trace`
 * options and never calls `debug`/`trace` when they are off, so an implementation can print
 * whatever it receives.
 */
export interface Logger {
  error(message: string): void;
  warn(message: string): void;
  info(message: string): void;
  debug(message: string): void;
  trace(message: string): void;
}

/** A logger that drops everything (handy in tests and embedded use). */
export const silentLogger: Logger = {
  error() {},
  warn() {},
  info() {},
  debug() {},
  trace() {},
};

export interface ConsoleLoggerOptions {
  /**
   * Where lines are written (default process.stderr). A line comes as the bytes `encodeSubject`
   * gives, so a subject decoded from invalid UTF-8 is logged as the bytes the client sent, as
   * nats-server does.
   */
  write?: (line: Uint8Array) => void;
  /** Timestamps in local time like nats-server (default) or UTC. */
  utc?: boolean;
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/**
 * Prints lines the way nats-server does, so log scrapers written for it keep working:
 * `[pid] 2026/11/29 07:48:34.591430 [INF] message`.
 */
export function createConsoleLogger(options: ConsoleLoggerOptions = {}): Logger {
  const write = options.write ?? ((line: Uint8Array) => process.stderr.write(line));
  const utc = options.utc ?? false;
  const prefix = `[${process.pid}] `;
  const stamp = () => {
    const d = new Date();
    const [y, mo, day, h, mi, s] = utc
      ? [
          d.getUTCFullYear(),
          d.getUTCMonth() + 1,
          d.getUTCDate(),
          d.getUTCHours(),
          d.getUTCMinutes(),
          d.getUTCSeconds(),
        ]
      : [
          d.getFullYear(),
          d.getMonth() + 1,
          d.getDate(),
          d.getHours(),
          d.getMinutes(),
          d.getSeconds(),
        ];
    return `${y}/${pad(mo)}/${pad(day)} ${pad(h)}:${pad(mi)}:${pad(s)}.${pad(d.getMilliseconds(), 3)}000`;
  };
  const line = (level: string) => (message: string) =>
    write(encodeSubject(`${prefix}${stamp()} [${level}] ${message}\n`));
  return {
    error: line('ERR'),
    warn: line('WRN'),
    info: line('INF'),
    debug: line('DBG'),
    trace: line('TRC'),
  };
}
