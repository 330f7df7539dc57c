import type { Command } from 'commander';
import { type Act, example } from '../command-kit.js';
import type { Session } from '../session.js';
import { section } from '../style.js';
import { formatBytes, formatDuration, parseDuration } from '../units.js';
import { registerServerPing } from './server-ping.js';
import { registerServerReport } from './server-report.js';

/**
 * `slip server info|ping|report|check connection`: about the connected server (and, ping and
 * report, every server the system account reaches).
 */
export function registerServer(program: Command, act: Act): void {
  const server = program.command('server').description('about the connected server');

  example(
    server
      .command('info')
      .description('what the server says about itself when a client connects (its INFO)'),
    'slip server info --json',
  ).action(
    act(async (session) => {
      const nc = await session.connect();
      const info = nc.info;
      if (session.json) return session.printJson(info);
      if (!info) return;
      session.out(
        section(`Server information for ${info.server_name ?? info.server_id}`, [
          ['Server ID', info.server_id],
          ['Version', info.version],
          ['Go', info.go],
          ['Git commit', info.git_commit],
          ['Host', `${info.host}:${info.port}`],
          ['Cluster', info.cluster],
          ['Protocol', info.proto],
          ['Headers', info.headers ? 'yes' : 'no'],
          ['JetStream', info.jetstream ? 'yes' : 'no'],
          ['Maximum payload', formatBytes(info.max_payload)],
          ['Auth required', info.auth_required ? 'yes' : 'no'],
          ['TLS required', info.tls_required ? 'yes' : 'no'],
          ['Client ID', info.client_id],
          ['Client IP', info.client_ip],
        ]),
      );
    }),
  );

  registerServerPing(server, act);
  registerServerReport(server, act);

  const check = server.command('check').description('health checks that print a Nagios line');
  example(
    check
      .command('connection')
      .description(
        'check that a connection can be made and answers in time; exit 0 OK, 1 WARNING, 2 CRITICAL',
      )
      .option('--connect-warning <duration>', 'warn when connecting takes longer', '500ms')
      .option('--connect-critical <duration>', 'critical when connecting takes longer', '1s')
      .option('--rtt-warning <duration>', 'warn when a round trip takes longer', '500ms')
      .option('--rtt-critical <duration>', 'critical when a round trip takes longer', '1s')
      .option('--req-warning <duration>', 'warn when a request to itself takes longer', '500ms')
      .option('--req-critical <duration>', 'critical when a request to itself takes longer', '1s'),
    'slip server check connection --rtt-warning 100ms',
  ).action(act(checkConnection));
}

interface CheckOptions {
  connectWarning: string;
  connectCritical: string;
  rttWarning: string;
  rttCritical: string;
  reqWarning: string;
  reqCritical: string;
}

type Level = 'OK' | 'WARNING' | 'CRITICAL';
const exitCodes: Record<Level, number> = { OK: 0, WARNING: 1, CRITICAL: 2 };

/** Connects, pings, and sends a request to its own inbox, each timed against its thresholds. */
async function checkConnection(session: Session, options: CheckOptions): Promise<void> {
  const measures: Array<{ name: string; label: string; ms: number; warn: number; crit: number }> =
    [];
  const report = (level: Level, details: string[]) => {
    if (session.json) session.printJson({ status: level, checks: measures, details });
    else {
      const perf = measures.map(
        (m) =>
          `${m.name}=${(m.ms / 1000).toFixed(4)}s;${(m.warn / 1000).toFixed(4)};${(m.crit / 1000).toFixed(4)}`,
      );
      session.out(
        `${level} Connection ${details.join(' ')}${perf.length ? ` | ${perf.join(' ')}` : ''}`,
      );
    }
    process.exitCode = exitCodes[level];
  };
  const timed = async <T>(run: () => Promise<T>): Promise<[T, number]> => {
    const started = performance.now();
    const value = await run();
    return [value, performance.now() - started];
  };
  let nc: Awaited<ReturnType<Session['connect']>>;
  let connectMs: number;
  try {
    [nc, connectMs] = await timed(() => session.connect());
  } catch (error) {
    return report('CRITICAL', [`CRITICAL:connection failed: ${(error as Error).message}`]);
  }
  const { createInbox } = await import('@slipstream/client');
  const inbox = createInbox();
  const sub = nc.subscribe(inbox, { callback: (_e, msg) => void msg.respond(msg.data) });
  const [, rttMs] = await timed(() => nc.rtt());
  const [, reqMs] = await timed(() => nc.request(inbox, 'ping', { timeout: session.timeout }));
  sub.unsubscribe();
  const checks = [
    {
      name: 'connect_time',
      label: `connected to ${nc.getServer()} in`,
      ms: connectMs,
      warn: options.connectWarning,
      crit: options.connectCritical,
    },
    {
      name: 'rtt',
      label: 'rtt time',
      ms: rttMs,
      warn: options.rttWarning,
      crit: options.rttCritical,
    },
    {
      name: 'request_time',
      label: 'round trip took',
      ms: reqMs,
      warn: options.reqWarning,
      crit: options.reqCritical,
    },
  ];
  let worst: Level = 'OK';
  const details: string[] = [];
  for (const c of checks) {
    const warn = parseDuration(c.warn);
    const crit = parseDuration(c.crit);
    measures.push({ name: c.name, label: c.label, ms: c.ms, warn, crit });
    const level: Level = c.ms > crit ? 'CRITICAL' : c.ms > warn ? 'WARNING' : 'OK';
    if (exitCodes[level] > exitCodes[worst]) worst = level;
    details.push(`${level}:${c.label} ${formatDuration(c.ms)}`);
  }
  report(worst, details);
}
