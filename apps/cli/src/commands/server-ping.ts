import type { Command } from 'commander';
import { type Act, example } from '../command-kit.js';
import { sleep } from '../interrupt.js';
import type { Session } from '../session.js';
import { formatDuration, parseInteger } from '../units.js';
import { UsageError } from '../usage-error.js';

/** What each server answers to $SYS.REQ.SERVER.PING: its statsz, the parts printed here. */
interface ServerStatsReply {
  server?: { name?: string; id?: string };
  statsz?: { active_servers?: number };
}

/** One server's answer: who it is, how big its statsz was, and when it came. */
interface Pong {
  name: string;
  id: string;
  size: number;
  rtt_ms: number;
}

/**
 * `slip server ping [expect]`: as `nats server ping`, asks every server of the cluster (through
 * the system account) for its statsz and lists each answer as it comes, until `expect` servers
 * (by default as many as the first answer counts) have answered or --timeout passes.
 */
export function registerServerPing(server: Command, act: Act): void {
  example(
    server
      .command('ping [expect]')
      .description(
        'ping every server through the system account ($SYS.REQ.SERVER.PING) and list each answer with its size and round trip',
      )
      .option('--id', 'show each server ID too'),
    'slip server ping 3 --creds sys.creds',
  ).action(
    act(async (session, expect: string | undefined, options: { id?: boolean }) => {
      let expected = expect === undefined ? 0 : parseInteger(expect, 1);
      const nc = await session.connect();
      const pongs: Pong[] = [];
      let failure: Error | undefined;
      const finished = new AbortController();
      const started = performance.now();
      const { createInbox } = await import('@slipstream/client');
      const inbox = createInbox();
      const sub = nc.subscribe(inbox, {
        callback: (_error, msg) => {
          if (msg.headers?.hasError) {
            failure = new UsageError(
              `${msg.headers.code} status from $SYS.REQ.SERVER.PING, ensure a system account is used with appropriate permissions`,
            );
            return finished.abort();
          }
          const stats = msg.json<ServerStatsReply>();
          if (expected === 0) expected = stats.statsz?.active_servers ?? 0;
          const pong: Pong = {
            name: stats.server?.name ?? '',
            id: stats.server?.id ?? '',
            size: msg.data.length,
            rtt_ms: performance.now() - started,
          };
          pongs.push(pong);
          if (!session.json) session.out(formatPong(pong, options.id === true));
          if (pongs.length === expected) finished.abort();
        },
      });
      nc.publish('$SYS.REQ.SERVER.PING', '', { reply: inbox });
      // Until --timeout, unless every expected server answered (or Ctrl-C) first.
      await sleep(session.timeout, AbortSignal.any([session.signal, finished.signal]));
      sub.unsubscribe();
      if (failure) throw failure;
      printSummary(session, pongs, expected);
    }),
  );
}

function formatPong(pong: Pong, withId: boolean): string {
  const name = withId ? `${pong.id} ${pong.name}` : pong.name;
  return `${name.padEnd(60)} size=${pong.size} rtt=${formatDuration(pong.rtt_ms)}`;
}

/** The closing statistics of `nats server ping`, and how many of the expected servers were silent. */
function printSummary(session: Session, pongs: Pong[], expected: number): void {
  const rtts = pongs.map((p) => p.rtt_ms);
  const missing = Math.max(0, expected - pongs.length);
  if (session.json) {
    session.printJson({ replies: pongs, expected, missing });
    return;
  }
  session.out('\n---- ping statistics ----');
  if (rtts.length === 0) session.out('no responses received');
  else {
    const average = rtts.reduce((a, b) => a + b, 0) / rtts.length;
    session.out(
      `${rtts.length} replies max: ${Math.max(...rtts).toFixed(2)} min: ${Math.min(...rtts).toFixed(2)} avg: ${average.toFixed(2)}`,
    );
  }
  if (missing) session.out(`\nMissing ${missing} server(s)`);
}
