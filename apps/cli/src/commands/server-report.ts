import type { Command } from 'commander';
import { type Act, example } from '../command-kit.js';
import { sleep } from '../interrupt.js';
import { table } from '../style.js';
import { formatBytes, parseInteger } from '../units.js';
import { UsageError } from '../usage-error.js';

/** One leaf connection as /leafz lists it (nats-server 2.9.10's LeafInfo). */
interface LeafInfo {
  account: string;
  ip: string;
  port: number;
  rtt?: string;
  in_msgs: number;
  out_msgs: number;
  in_bytes: number;
  out_bytes: number;
  subscriptions: number;
  subscriptions_list?: string[];
}

/** A server's answer to $SYS.REQ.SERVER.PING.LEAFZ: who it is and its /leafz. */
interface LeafzReply {
  server?: { name?: string; id?: string };
  data?: { leafs?: LeafInfo[] | null };
  error?: { code?: number; description?: string };
}

/**
 * `slip server report leafnodes [expect]`: as `nats server report leafnodes`, asks every server
 * (through the system account) for its /leafz and lists each leaf connection, until `expect`
 * servers have answered or --timeout passes.
 */
export function registerServerReport(server: Command, act: Act): void {
  const report = server
    .command('report')
    .description('reports gathered from every server through the system account');
  example(
    report
      .command('leafnodes [expect]')
      .description(
        'the leaf node connections of every server ($SYS.REQ.SERVER.PING.LEAFZ): account, address, round trip, traffic, subscriptions',
      )
      .option('--account <name>', 'only the connections bound to this account')
      .option('--subscriptions', 'list the subscriptions of each connection too'),
    'slip server report leafnodes --creds sys.creds',
  ).action(
    act(
      async (
        session,
        expect: string | undefined,
        options: { account?: string; subscriptions?: boolean },
      ) => {
        const expected = expect === undefined ? 0 : parseInteger(expect, 1);
        const nc = await session.connect();
        const replies: LeafzReply[] = [];
        let failure: Error | undefined;
        const finished = new AbortController();
        const { createInbox } = await import('@slipstream/client');
        const inbox = createInbox();
        const sub = nc.subscribe(inbox, {
          callback: (_error, msg) => {
            if (msg.headers?.hasError) {
              failure = new UsageError(
                `${msg.headers.code} status from $SYS.REQ.SERVER.PING.LEAFZ, ensure a system account is used with appropriate permissions`,
              );
              return finished.abort();
            }
            replies.push(msg.json<LeafzReply>());
            if (replies.length === expected) finished.abort();
          },
        });
        const body = JSON.stringify({
          ...(options.account ? { account: options.account } : {}),
          ...(options.subscriptions ? { subscriptions: true } : {}),
        });
        nc.publish('$SYS.REQ.SERVER.PING.LEAFZ', body, { reply: inbox });
        await sleep(session.timeout, AbortSignal.any([session.signal, finished.signal]));
        sub.unsubscribe();
        if (failure) throw failure;
        if (session.json) return session.printJson(replies);
        session.out(leafTable(replies, options.subscriptions === true));
      },
    ),
  );
}

function leafTable(replies: LeafzReply[], withSubscriptions: boolean): string {
  const rows: (string | number)[][] = [];
  let count = 0;
  for (const reply of replies) {
    const server = reply.server?.name ?? reply.server?.id ?? '';
    for (const leaf of reply.data?.leafs ?? []) {
      count++;
      const row: (string | number)[] = [
        server,
        leaf.account,
        `${leaf.ip}:${leaf.port}`,
        leaf.rtt ?? '',
        leaf.in_msgs,
        leaf.out_msgs,
        formatBytes(leaf.in_bytes),
        formatBytes(leaf.out_bytes),
        leaf.subscriptions,
      ];
      if (withSubscriptions) row.push((leaf.subscriptions_list ?? []).join(', '));
      rows.push(row);
    }
  }
  const head = [
    'Server',
    'Account',
    'Address',
    'RTT',
    'Msgs In',
    'Msgs Out',
    'Bytes In',
    'Bytes Out',
    'Subs',
    ...(withSubscriptions ? ['Subscriptions'] : []),
  ];
  return table(
    head,
    rows,
    `Leafnode Report: ${count} connection(s) on ${replies.length} server(s)`,
  );
}
