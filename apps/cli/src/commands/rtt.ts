import type { Command } from 'commander';
import { type Act, example } from '../command-kit.js';
import { formatDuration, parseInteger } from '../units.js';

/** `slip rtt`: the average round trip time to the connected server (PING to PONG). */
export function registerRtt(program: Command, act: Act): void {
  example(
    program
      .command('rtt [iterations]')
      .description(
        'measure the round trip time to the server, averaged over iterations (default 5)',
      ),
    'slip rtt 10',
  ).action(
    act(async (session, iterations: string | undefined) => {
      const times = parseInteger(iterations ?? '5', 1);
      const nc = await session.connect();
      let total = 0;
      for (let i = 0; i < times && !session.signal.aborted; i++) total += await nc.rtt();
      const average = total / times;
      const server = nc.getServer();
      if (session.json) return session.printJson({ server, iterations: times, rtt_ms: average });
      session.out(`${server}: ${formatDuration(average)}`);
    }),
  );
}
