import type { Command } from 'commander';
import { type Act, example } from '../command-kit.js';
import { confirmed } from '../confirm.js';
import { apiCall } from '../jetstream-api-call.js';
import type { Session } from '../session.js';
import { formatDuration, formatTimestamp, parseTimeOrDuration } from '../units.js';
import { UsageError } from '../usage-error.js';

/** What CONSUMER.PAUSE answers (nats-server 2.11). */
interface PauseAnswer {
  paused: boolean;
  pause_until: string;
  pause_remaining?: number;
}

/**
 * `slip consumer pause|resume`: as `nats consumer pause|resume`, stops a consumer delivering
 * until a time (nats-server 2.11's CONSUMER.PAUSE), or lets it go on at once.
 */
export function registerConsumerPause(consumer: Command, act: Act): void {
  example(
    consumer
      .command('pause <stream> <name> [until]')
      .description(
        'pause a consumer until a time (UTC, "2026-12-24 18:00:00") or for a duration (1h30m); nats-server 2.11+',
      )
      .option('-f, --force', 'do not ask for confirmation'),
    'slip consumer pause ORDERS shipping 2h -f',
  ).action(
    act(
      async (
        session,
        stream: string,
        name: string,
        until: string | undefined,
        options: { force?: boolean },
      ) => {
        const jsm = await session.jsm();
        await jsm.consumers.info(stream, name); // a missing consumer is reported first
        const deadline = await pauseDeadline(until);
        const action = `pause Consumer ${stream} > ${name} until ${formatTimestamp(deadline.toISOString())}`;
        if (!(await confirmed(action, options.force))) return;
        const answer = await pauseRequest(session, stream, name, deadline);
        if (!answer.paused)
          throw new UsageError('consumer failed to pause, perhaps a time in the past was given');
        if (session.json) return session.printJson(answer);
        const remaining = answer.pause_remaining
          ? formatDuration(answer.pause_remaining / 1e6)
          : '';
        session.out(
          `Paused ${stream} > ${name} until ${formatTimestamp(answer.pause_until)}${remaining ? ` (${remaining})` : ''}`,
        );
      },
    ),
  );

  example(
    consumer
      .command('resume <stream> <name>')
      .description('resume a paused consumer now; nats-server 2.11+')
      .option('-f, --force', 'do not ask for confirmation'),
    'slip consumer resume ORDERS shipping -f',
  ).action(
    act(async (session, stream: string, name: string, options: { force?: boolean }) => {
      const jsm = await session.jsm();
      const info = await jsm.consumers.info(stream, name);
      // Asked only when there is something to resume; otherwise the (harmless) resume request
      // still tells a server that cannot pause (silent) from a consumer that is not paused.
      if (info.paused && !(await confirmed(`resume Consumer ${stream} > ${name}`, options.force)))
        return;
      const answer = await pauseRequest(session, stream, name, undefined);
      if (!info.paused) throw new UsageError(`consumer ${stream} > ${name} is not paused`);
      if (session.json) return session.printJson(answer);
      const until = info.config.pause_until ? formatTimestamp(info.config.pause_until) : 'unknown';
      session.out(
        `Consumer ${stream} > ${name} was resumed while previously paused until ${until}`,
      );
    }),
  );
}

/** `until` as a time (UTC unless it says otherwise) or a duration from now; asked for at a terminal. */
async function pauseDeadline(until: string | undefined): Promise<Date> {
  let text = until;
  if (text === undefined) {
    if (!process.stdin.isTTY) throw new UsageError('give the time or duration to pause until');
    const { input } = await import('@inquirer/prompts');
    const inAnHour = new Date(Date.now() + 3_600_000).toISOString().slice(0, 19).replace('T', ' ');
    text = await input({ message: 'Pause until (time or duration)', default: inAnHour });
  }
  return parseTimeOrDuration(text);
}

/**
 * CONSUMER.PAUSE until `deadline`, or without one (resume). Servers before nats-server 2.11
 * do not answer it at all: their silence is said in one line.
 */
async function pauseRequest(
  session: Session,
  stream: string,
  name: string,
  deadline: Date | undefined,
): Promise<PauseAnswer> {
  try {
    return await apiCall<PauseAnswer>(
      await session.connect(),
      `$JS.API.CONSUMER.PAUSE.${stream}.${name}`,
      deadline ? { pause_until: deadline.toISOString() } : {},
      session.timeout,
    );
  } catch (error) {
    const { TimeoutError } = await import('@slipstream/client');
    if (!(error instanceof TimeoutError)) throw error;
    throw new UsageError(
      `the server did not answer CONSUMER.PAUSE within ${formatDuration(session.timeout)}: pausing consumers needs nats-server 2.11 or newer`,
    );
  }
}
