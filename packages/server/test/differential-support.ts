import { RawClient } from './raw-client.js';
import type { RunningTarget } from './targets.js';

// Helpers for tests that send the same protocol text to our server and to nats-server and
// compare the answers. Texts are byte strings, one char per byte (latin1), the way RawClient
// receives them, so any byte can be sent and compared.

/** mulberry32: a tiny seeded generator, so a failing script can be replayed from its seed. */
export function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * The answer split into control frames in order, and the messages of each sid in order.
 * nats-server hands one publish to its matching subscriptions in Go map order, so the order of
 * MSGs across different sids is not part of its behaviour; everything else is compared exactly.
 * Arguments are split at the protocol's own separators only (any other byte may be in them).
 */
export function canonical(answer: string): {
  control: string[];
  bySid: Record<string, string[]>;
} {
  const control: string[] = [];
  const bySid: Record<string, string[]> = {};
  const frame =
    /(H?MSG) ([^ \t\r\n]+) ([^ \t\r\n]+) (?:([^ \t\r\n]+) )?(?:(\d+) )?(\d+)\r\n|([^\r\n]*)\r\n/y;
  let at = 0;
  while (at < answer.length) {
    frame.lastIndex = at;
    const m = frame.exec(answer);
    if (!m) throw new Error(`unparsable answer at ${at}: ${JSON.stringify(answer.slice(at))}`);
    at = frame.lastIndex;
    if (m[1] === undefined) {
      control.push(m[7]!);
      continue;
    }
    const total = Number(m[6]);
    const body = answer.slice(at, at + total);
    at += total + 2;
    (bySid[m[3]!] ??= []).push(`${m[0]}${body}`);
  }
  return { control, bySid };
}

/** Sends `text` and a PING, then waits for the PONG or for the server to close the connection. */
export async function exchange(client: RawClient, text: string): Promise<void> {
  if (client.isClosed) return;
  const pongs = client.text.split('PONG\r\n').length;
  await client.send(Buffer.from(`${text}PING\r\n`, 'latin1'));
  const answered = client.waitUntil((received) => received.split('PONG\r\n').length > pongs);
  await Promise.race([answered, client.closed]).catch(() => client.closed);
}

/** Runs the scripts on fresh connections one after the other; returns what each connection got. */
export async function run(server: RunningTarget, ...texts: string[]): Promise<string[]> {
  const clients = await Promise.all(texts.map(() => RawClient.connectAndGreet(server.port)));
  try {
    for (let i = 0; i < texts.length; i++) await exchange(clients[i]!, texts[i]!);
    // Let the earlier connections collect what the later ones published to them.
    for (const client of clients) await exchange(client, '');
    return clients.map((client) => client.afterInfo());
  } finally {
    for (const client of clients) client.close();
  }
}
