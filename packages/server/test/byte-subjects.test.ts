import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createConsoleLogger, startServer } from '../src/index.js';
import { canonical, exchange, random, run } from './differential-support.js';
import { RawClient } from './raw-client.js';
import { bothServers, closedAfterEach, natsServer, ours, type RunningTarget } from './targets.js';

// Subjects, replies, queue names and sids are bytes: nats-server routes, matches and forwards
// exactly the bytes a client sent, valid UTF-8 or not. Texts here are byte strings (latin1).

const QUIET = 'CONNECT {"verbose":false,"pedantic":false,"headers":true}\r\n';

describe.each(bothServers)('subjects as bytes on $name', (target) => {
  let server: RunningTarget;
  const resources = closedAfterEach(target);
  beforeAll(async () => {
    server = await target.start();
  });
  afterAll(() => server?.stop());

  it('delivers a PUB on \\xfe.a only to a SUB on exactly those bytes, not to \\xff.a', async () => {
    const client = await resources.connect(server);
    await exchange(
      client,
      `${QUIET}SUB \xff.a 1\r\nSUB \xfe.a 2\r\nSUB *.a 3\r\nPUB \xfe.a 2\r\nfe\r\nPUB \xef\xbf\xbd.a 4\r\nfffd\r\n`,
    );
    expect(canonical(client.afterInfo())).toEqual({
      control: ['PONG'],
      bySid: {
        '2': ['MSG \xfe.a 2 2\r\nfe'],
        '3': ['MSG \xfe.a 3 2\r\nfe', 'MSG \xef\xbf\xbd.a 3 4\r\nfffd'],
      },
    });
  });

  it('echoes reply subjects, queue names and sids as their exact bytes', async () => {
    const client = await resources.connect(server);
    await exchange(
      client,
      `${QUIET}SUB a q\xff s\xff\r\nSUB a q\xfe s\xfe\r\nSUB a \xc3\r\nPUB a r.\xe9\xff 1\r\nx\r\nHPUB a r\xc0 12 12\r\nNATS/1.0\r\n\r\n\r\n`,
    );
    expect(canonical(client.afterInfo())).toEqual({
      control: ['PONG'],
      bySid: {
        's\xff': ['MSG a s\xff r.\xe9\xff 1\r\nx', 'HMSG a s\xff r\xc0 12 12\r\nNATS/1.0\r\n\r\n'],
        's\xfe': ['MSG a s\xfe r.\xe9\xff 1\r\nx', 'HMSG a s\xfe r\xc0 12 12\r\nNATS/1.0\r\n\r\n'],
        '\xc3': ['MSG a \xc3 r.\xe9\xff 1\r\nx', 'HMSG a \xc3 r\xc0 12 12\r\nNATS/1.0\r\n\r\n'],
      },
    });
  });
});

describe.each(bothServers)('pedantic publishing to byte subjects on $name', (target) => {
  let server: RunningTarget;
  const resources = closedAfterEach(target);
  beforeAll(async () => {
    server = await target.start();
  });
  afterAll(() => server?.stop());

  // nats-server 2.9.10's pedantic check refuses only empty and wildcard tokens: a form feed or
  // an invalid UTF-8 byte in a token is a literal subject like any other.
  it('complains only of empty and wildcard tokens, and delivers either way', async () => {
    const client = await resources.connect(server);
    await exchange(
      client,
      'CONNECT {"verbose":false,"pedantic":true}\r\nSUB > 1\r\n' +
        'PUB a\fb 1\r\nf\r\nPUB \xff.a 1\r\nx\r\nPUB a..b 1\r\ne\r\nPUB a.* 1\r\nw\r\n',
    );
    expect(canonical(client.afterInfo())).toEqual({
      control: ["-ERR 'Invalid Publish Subject'", "-ERR 'Invalid Publish Subject'", 'PONG'],
      bySid: { '1': ['MSG a\fb 1 1\r\nf', 'MSG \xff.a 1 1\r\nx', 'MSG a.* 1 1\r\nw'] },
    });
  });
});

describe.each(bothServers)('byte subjects in the monitoring of $name', (target) => {
  let server: RunningTarget;
  const resources = closedAfterEach(target);
  beforeAll(async () => {
    server = await target.start({ monitoring: true });
  });
  afterAll(() => server?.stop());
  /** The raw body, one char per byte. */
  const get = async (path: string) =>
    Buffer.from(await (await fetch(`${server.httpUrl}${path}`)).arrayBuffer()).toString('latin1');

  it('shows each invalid byte as \\ufffd, as Go does, and tests subjects by their bytes', async () => {
    const client = await resources.connect(server);
    await exchange(client, `${QUIET}SUB \xff.a q\xfe 1\xfd\r\nSUB \xef\xbf\xbd.a 2\r\n`);
    const connz = await get('/connz?subs=detail');
    expect(connz).toContain('"subject": "\\ufffd.a",\n');
    expect(connz).toContain('"qgroup": "q\\ufffd",\n');
    expect(connz).toContain('"sid": "1\\ufffd",\n');
    expect(connz).toContain('"subject": "\xef\xbf\xbd.a",\n');
    const sids = async (test: string) => {
      const subsz = JSON.parse(await get(`/subsz?subs=1&test=${test}`)) as {
        subscriptions_list?: { sid: string }[];
      };
      return subsz.subscriptions_list?.map((sub) => sub.sid);
    };
    expect(await sids('%FF.a')).toEqual(['1\ufffd']);
    expect(await sids('%EF%BF%BD.a')).toEqual(['2']);
  });
});

describe('the console log of our server', () => {
  it('traces subjects, queues and sids as the bytes the client sent', async () => {
    const written: Buffer[] = [];
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
      written.push(Buffer.from(chunk as Uint8Array));
      return true;
    });
    try {
      const server = await startServer({
        host: '127.0.0.1',
        port: 0,
        trace: true,
        logger: createConsoleLogger(),
      });
      const client = await RawClient.connectAndGreet(server.port);
      await exchange(client, `${QUIET}SUB \xff.a q\xfe 1\xfd\r\nPUB \xff.a 1\r\nx\r\n`);
      client.close();
      await server.close();
    } finally {
      stderr.mockRestore();
    }
    const log = Buffer.concat(written).toString('latin1');
    expect(log).toContain('<<- [SUB \xff.a q\xfe 1\xfd]\n');
    expect(log).toContain('->> [MSG \xff.a 1\xfd 1]\n');
  });
});

// Pieces of tokens: invalid UTF-8 (a stray continuation byte, an overlong form, truncated
// sequences, an encoded surrogate, a code point above U+10FFFF, bytes never valid), valid UTF-8
// (é, €, an emoji, U+FFFD itself, a byte order mark) and ASCII, wildcard characters included.
const INVALID = [
  '\x80',
  '\xbf',
  '\xc0\xaf',
  '\xc3',
  '\xe2\x82',
  '\xed\xa0\x80',
  '\xf4\x90\x80\x80',
];
const NEVER_VALID = ['\xfe', '\xff'];
const VALID = ['a', 'b', '*', '>', '\xc3\xa9', '\xe2\x82\xac', '\xf0\x9f\x98\x80', '\xef\xbf\xbd'];
const BOM = '\xef\xbb\xbf';
/** Bytes a replaced byte >= 0x80 may become, U+FFFD's encoding among them. */
const SWAPS = ['\x80', '\xbf', '\xfe', '\xff', '\xef\xbf\xbd'];
/** What separates protocol arguments or subject tokens, so it cannot be inside a token. */
const SEPARATORS = new Set([0x09, 0x0a, 0x0d, 0x20, 0x2e]);

/**
 * One connection's script: subscriptions on byte subjects and publishes on those subjects and on
 * look-alikes that differ only in a byte that is not valid UTF-8 (decoded with replacement, they
 * would all be the same string). Sids and queue names differ from each other in such bytes too.
 */
function script(seed: number): string {
  const next = random(seed);
  const pick = <T>(values: readonly T[]) => values[Math.floor(next() * values.length)]!;
  const anyByte = () => {
    let byte = Math.floor(next() * 256);
    while (SEPARATORS.has(byte)) byte = Math.floor(next() * 256);
    return String.fromCharCode(byte);
  };
  const piece = () => {
    const roll = next();
    if (roll < 0.3) return pick(INVALID);
    if (roll < 0.45) return pick(NEVER_VALID);
    if (roll < 0.8) return pick(VALID);
    return roll < 0.85 ? BOM : anyByte();
  };
  const token = () => Array.from({ length: 1 + Math.floor(next() * 3) }, piece).join('');
  const literal = () => Array.from({ length: 1 + Math.floor(next() * 3) }, token).join('.');
  const lookAlike = (subject: string) =>
    subject.replace(/[\x80-\xff]/g, (byte) => (next() < 0.4 ? pick(SWAPS) : byte));
  const pattern = (subject: string) => {
    const tokens = subject.split('.');
    const roll = next();
    if (roll < 0.2) tokens[Math.floor(next() * tokens.length)] = '*';
    else if (roll < 0.4) tokens.splice(Math.floor(next() * tokens.length), tokens.length, '>');
    return tokens.join('.');
  };
  // Sids and queue names are unique as bytes (a queue group of one gets every message), but
  // many differ only in one invalid byte.
  const used = new Set<string>();
  const unique = (prefix: string) => {
    for (;;) {
      const name = `${prefix}${next() < 0.7 ? pick([...SWAPS, ...INVALID]) : ''}${Math.floor(next() * 2)}`;
      if (!used.has(name)) {
        used.add(name);
        return name;
      }
    }
  };

  const subjects = Array.from({ length: 4 }, literal);
  let text = QUIET;
  for (let i = 0; i < 6; i++) {
    const queue = next() < 0.3 ? `${unique('q')} ` : '';
    text += `SUB ${pattern(pick(subjects))} ${queue}${unique('s')}\r\n`;
  }
  for (let i = 0; i < 12; i++) {
    const base = pick(subjects);
    const subject = next() < 0.6 ? lookAlike(base) : base;
    const reply = next() < 0.3 ? `${lookAlike(literal())} ` : '';
    const payload = `${i}`;
    if (next() < 0.25) {
      const header = 'NATS/1.0\r\nK: \xff\r\n\r\n';
      text += `HPUB ${subject} ${reply}${header.length} ${header.length + payload.length}\r\n${header}${payload}\r\n`;
    } else {
      text += `PUB ${subject} ${reply}${payload.length}\r\n${payload}\r\n`;
    }
  }
  return text;
}

describe('random byte subjects get the same deliveries from both servers', () => {
  let mine: RunningTarget;
  let reference: RunningTarget;
  beforeAll(async () => {
    [mine, reference] = await Promise.all([ours.start(), natsServer.start()]);
  });
  afterAll(async () => {
    await Promise.all([mine?.stop(), reference?.stop()]);
  });

  it('for 100 seeded scripts, down to the bytes of every MSG line', async () => {
    let delivered = 0;
    for (let seed = 1; seed <= 100; seed++) {
      const text = script(seed);
      const [[a], [b]] = await Promise.all([run(mine, text), run(reference, text)]);
      const expected = canonical(b!);
      expect(canonical(a!), `seed ${seed}:\n${JSON.stringify(text)}`).toEqual(expected);
      for (const messages of Object.values(expected.bySid)) delivered += messages.length;
    }
    // The comparison means something only if the scripts deliver: about 2000 messages today.
    expect(delivered).toBeGreaterThan(1000);
  });
});
