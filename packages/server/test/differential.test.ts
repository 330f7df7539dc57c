import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonical, random, run } from './differential-support.js';
import { natsServer, ours, type RunningTarget } from './targets.js';

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
