import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RawClient } from './raw-client.js';
import { natsServer, ours, type RunningTarget } from './targets.js';

/** mulberry32: a tiny seeded generator, so a failing script can be replayed from its seed. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SUB_SUBJECTS = ['a', 'a.b', 'a.*', 'a.>', '*.b', '>', 'a.b.c', 'a..b', 'a.>.c', 'b*'];
const PUB_SUBJECTS = ['a', 'a.b', 'a.c', 'a.b.c', 'x.b', 'a.*', 'a..b', 'b*', '_R_.x'];
const REPLIES = [undefined, undefined, 'r', 'r.*', '_R_.x'];
const VIOLATIONS = [
  'FOO\r\n',
  'PUB a 3\r\nhello\r\n',
  'PUB a 5\r\nhi\r\n',
  'SUB a\r\n',
  'PUB a -1\r\n',
  'MSG a 1 1\r\nx\r\n',
  "-ERR 'x'\r\n",
  'UNSUB\r\n',
  'HPUB a 5 3\r\nabc\r\n',
  'CONNECT {bad\r\n',
  `PUB ${'a'.repeat(5000)} 1\r\nx\r\n`,
];

/** A script of valid-looking frames over a small vocabulary, with subjects valid and not. */
function script(seed: number): string {
  const next = random(seed);
  const pick = <T>(values: readonly T[]) => values[Math.floor(next() * values.length)]!;
  const flag = () => (next() < 0.5 ? 'true' : 'false');
  let text = `CONNECT {"verbose":${flag()},"pedantic":${flag()},"echo":${flag()},"headers":true}\r\n`;
  const sids: number[] = [];
  for (let i = 0; i < 12; i++) {
    const roll = next();
    if (roll < 0.35) {
      const sid = 1 + Math.floor(next() * 6);
      sids.push(sid);
      text += `SUB ${pick(SUB_SUBJECTS)} ${sid}\r\n`;
    } else if (roll < 0.45 && sids.length > 0) {
      text += `UNSUB ${pick(sids)}${next() < 0.5 ? ` ${Math.floor(next() * 3)}` : ''}\r\n`;
    } else if (roll < 0.55) {
      const payload = 'p'.repeat(Math.floor(next() * 4));
      const header = 'NATS/1.0\r\nK: v\r\n\r\n';
      const reply = pick(REPLIES);
      text += `HPUB ${pick(PUB_SUBJECTS)} ${reply ? `${reply} ` : ''}${header.length} ${header.length + payload.length}\r\n${header}${payload}\r\n`;
    } else {
      const payload = 'x'.repeat(Math.floor(next() * 5));
      const reply = pick(REPLIES);
      text += `PUB ${pick(PUB_SUBJECTS)} ${reply ? `${reply} ` : ''}${payload.length}\r\n${payload}\r\n`;
    }
  }
  // Sometimes end with a violation: what is sent before the connection closes must match too.
  if (next() < 0.3) text += pick(VIOLATIONS);
  return text;
}

/**
 * The answer split into control frames in order, and the messages of each sid in order.
 * nats-server hands one publish to its matching subscriptions in Go map order, so the order of
 * MSGs across different sids is not part of its behaviour; everything else is compared exactly.
 */
function canonical(answer: string): { control: string[]; bySid: Record<string, string[]> } {
  const control: string[] = [];
  const bySid: Record<string, string[]> = {};
  const frame = /(H?MSG) (\S+) (\S+) (?:(\S+) )?(?:(\d+) )?(\d+)\r\n|([^\r\n]*)\r\n/y;
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
async function exchange(client: RawClient, text: string): Promise<void> {
  if (client.isClosed) return;
  const pongs = client.text.split('PONG\r\n').length;
  await client.send(`${text}PING\r\n`);
  const answered = client.waitUntil((received) => received.split('PONG\r\n').length > pongs);
  await Promise.race([answered, client.closed]).catch(() => client.closed);
}

/** Runs the scripts on fresh connections one after the other; returns what each connection got. */
async function run(server: RunningTarget, ...texts: string[]): Promise<string[]> {
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

describe('random scripts get the same answers from both servers', () => {
  let mine: RunningTarget;
  let reference: RunningTarget;
  beforeAll(async () => {
    [mine, reference] = await Promise.all([ours.start(), natsServer.start()]);
  });
  afterAll(async () => {
    await Promise.all([mine?.stop(), reference?.stop()]);
  });

  it('for 150 seeded scripts on one connection', async () => {
    for (let seed = 1; seed <= 150; seed++) {
      const text = script(seed);
      const [[a], [b]] = await Promise.all([run(mine, text), run(reference, text)]);
      expect(canonical(a!), `seed ${seed}:\n${text}`).toEqual(canonical(b!));
    }
  });

  it('for 100 seeded script pairs on two connections', async () => {
    for (let seed = 1001; seed <= 1100; seed++) {
      const texts = [script(seed), script(seed + 5000)];
      const [a, b] = await Promise.all([run(mine, ...texts), run(reference, ...texts)]);
      expect(a.map(canonical), `seeds ${seed}, ${seed + 5000}:\n${texts.join('\n---\n')}`).toEqual(
        b.map(canonical),
      );
    }
  });
});
