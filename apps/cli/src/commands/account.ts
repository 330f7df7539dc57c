import type { JetStreamAccountStats } from '@slipstream/jetstream';
import type { Command } from 'commander';
import { type Act, example } from '../command-kit.js';
import { section } from '../style.js';
import { formatBytes, formatCount } from '../units.js';

/** `slip account info`: the connection, and the account's JetStream usage and limits if it has JetStream. */
export function registerAccount(program: Command, act: Act): void {
  const account = program
    .command('account')
    .description('about the account the tool is connected as');
  example(
    account.command('info').description('connection details and JetStream usage and limits'),
    'slip account info --json',
  ).action(
    act(async (session) => {
      const nc = await session.connect();
      const rtt = await nc.rtt();
      const { JetStreamNotEnabled } = await import('@slipstream/jetstream');
      let jetstream: JetStreamAccountStats | undefined;
      try {
        jetstream = await (await session.jsm()).getAccountInfo();
      } catch (error) {
        if (!(error instanceof JetStreamNotEnabled)) throw error;
      }
      const info = nc.info;
      if (session.json) {
        return session.printJson({
          server: nc.getServer(),
          info,
          rtt_ms: rtt,
          jetstream: jetstream ?? null,
        });
      }
      session.out(
        section('Connection Information', [
          ['Client ID', info?.client_id],
          ['Client IP', info?.client_ip],
          ['RTT', `${rtt.toFixed(2)}ms`],
          ['Headers Supported', info?.headers ? 'yes' : 'no'],
          ['Maximum Payload', formatBytes(info?.max_payload ?? 0)],
          ['Connected URL', nc.getServer()],
          ['Connected Server ID', info?.server_id],
          ['Connected Server Version', info?.version],
          ['TLS Connection', info?.tls_required ? 'yes' : 'no'],
        ]),
      );
      if (!jetstream) return session.out('JetStream is not enabled for this account');
      const limits = jetstream.limits;
      session.out(
        section('JetStream Account Information', [
          ['Memory', `${formatBytes(jetstream.memory)} of ${formatBytes(limits.max_memory)}`],
          ['Storage', `${formatBytes(jetstream.storage)} of ${formatBytes(limits.max_storage)}`],
          ['Streams', `${formatCount(jetstream.streams)} of ${formatCount(limits.max_streams)}`],
          [
            'Consumers',
            `${formatCount(jetstream.consumers)} of ${formatCount(limits.max_consumers)}`,
          ],
          ['API requests', formatCount(jetstream.api.total)],
          ['API errors', formatCount(jetstream.api.errors)],
        ]),
      );
    }),
  );
}
