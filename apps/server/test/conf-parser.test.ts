import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../src/conf/errors.js';
import { parseConfigFile, parseConfigText } from '../src/conf/parser.js';
import { parseDuration, parseSize } from '../src/conf/units.js';
import { thrown } from './thrown.js';

const parse = (text: string, env: Record<string, string> = {}) =>
  parseConfigText(text, 'test.conf', { env }).data;
const fixtures = join(import.meta.dirname, 'fixtures');

const errorOf = (run: () => unknown) => thrown(ConfigError, run);

describe('config text parser', () => {
  it.each([
    ['port: 4222', { port: 4222 }],
    ['port = 4222', { port: 4222 }],
    ['port 4222', { port: 4222 }],
    ['port:4222', { port: 4222 }],
    ['port=4222;', { port: 4222 }],
    ['a: 1, b: 2; c = 3', { a: 1, b: 2, c: 3 }],
    ['"quoted key": 1', { 'quoted key': 1 }],
    ["'single': 'raw \\n text'", { single: 'raw \\n text' }],
    ['s: "tab\\there \\"q\\" \\x41"', { s: 'tab\there "q" A' }],
    ['f: 1.5, neg: -3', { f: 1.5, neg: -3 }],
    ['a: true, b: off, c: YES, d: no', { a: true, b: false, c: true, d: false }],
    ['host: 127.0.0.1', { host: '127.0.0.1' }],
    ['listen: 0.0.0.0:4222', { listen: '0.0.0.0:4222' }],
    ['url: nats://user:pw@host:4222', { url: 'nats://user:pw@host:4222' }],
    ['word: hello', { word: 'hello' }],
    ['pw: $2a$11$abc', { pw: '$2a$11$abc' }],
    ['when: 2026-11-29T07:00:00Z', { when: new Date('2026-11-29T07:00:00Z') }],
  ])('%s', (text, expected) => {
    expect(parse(text)).toEqual(expected);
  });

  it.each([
    ['1k', 1000],
    ['1K', 1000],
    ['1KB', 1024],
    ['1kb', 1024],
    ['1Ki', 1024],
    ['2MB', 2 * 1024 ** 2],
    ['2M', 2_000_000],
    ['1GB', 1024 ** 3],
    ['1G', 1e9],
    ['1TB', 1024 ** 4],
  ])('size %s', (text, bytes) => {
    expect(parse(`v: ${text}`)).toEqual({ v: bytes });
    expect(parseSize(text)).toBe(bytes);
  });

  it.each([
    ['2m', 120_000],
    ['10s', 10_000],
    ['1h30m', 5_400_000],
    ['500ms', 500],
    ['1.5s', 1500],
    ['0', 0],
    ['1000us', 1],
  ])('duration %s', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each(['', '10', '2 m', 'm', '1x'])('rejects the duration %j', (text) => {
    expect(parseDuration(text)).toBeUndefined();
  });

  it('parses nested maps, with or without a separator, and arrays with mixed values', () => {
    const text = `
      authorization {
        user: a
        inner = { deep: [1, "two", {x: 3}] }
      }
      accounts: {
        A: { users: [ {user: a, password: b}
                      {user: c, password: d} ] }
      }
      list [
        1 # comment inside
        2, // another
        3
      ]
    `;
    expect(parse(text)).toEqual({
      authorization: { user: 'a', inner: { deep: [1, 'two', { x: 3 }] } },
      accounts: {
        A: {
          users: [
            { user: 'a', password: 'b' },
            { user: 'c', password: 'd' },
          ],
        },
      },
      list: [1, 2, 3],
    });
  });

  it('reads a block string up to a ) alone on its line', () => {
    expect(parse('text (\n  line one\n  (two)\n)\nafter: 1')).toEqual({
      text: '  line one\n  (two)',
      after: 1,
    });
  });

  it('resolves variables from the enclosing blocks, innermost first', () => {
    const text = `
      V: outer
      a { V: inner, got: $V }
      b { got: $V }
    `;
    const parsed = parseConfigText(text, 'test.conf', { env: {} });
    expect(parsed.data.a).toEqual({ V: 'inner', got: 'inner' });
    expect(parsed.data.b).toEqual({ got: 'outer' });
    expect([...parsed.usedAsVariable].sort()).toEqual(['V', 'a.V']);
  });

  it('falls back to environment variables, typed like file values', () => {
    expect(
      parse('port: $PORT, name: $NAME, big: $SIZE', { PORT: '4333', NAME: 'hello', SIZE: '1MB' }),
    ).toEqual({
      port: 4333,
      name: 'hello',
      big: 1024 * 1024,
    });
  });

  it('records the line of every key', () => {
    const parsed = parseConfigText('a: 1\n\nb {\n  c: 2\n}\nl: [\n 1,\n 2]', 'x.conf', { env: {} });
    expect(
      Object.fromEntries([...parsed.positions].map(([k, v]) => [k, `${v.file}:${v.line}`])),
    ).toEqual({
      a: 'x.conf:1',
      b: 'x.conf:3',
      'b.c': 'x.conf:4',
      l: 'x.conf:6',
      'l.0': 'x.conf:7',
      'l.1': 'x.conf:8',
    });
  });

  it.each([
    ['a: $MISSING', 'CONFIG_VARIABLE', 'test.conf:1: variable $MISSING is not defined'],
    ['a {\n b: 1', 'CONFIG_SYNTAX', "test.conf:2: missing '}'"],
    ['a: [1, 2', 'CONFIG_SYNTAX', "test.conf:1: missing ']'"],
    ['}', 'CONFIG_SYNTAX', "test.conf:1: unexpected '}'"],
    ['\n\na: "open', 'CONFIG_SYNTAX', 'test.conf:3: unterminated string'],
    ['a: "\\q"', 'CONFIG_SYNTAX', "invalid escape '\\q'"],
    ['a: (\n no end', 'CONFIG_SYNTAX', 'unterminated block'],
    ['a:', 'CONFIG_SYNTAX', 'expected a value'],
  ])('reports %j with file and line', (text, code, message) => {
    const error = errorOf(() => parse(text));
    expect(error.code).toBe(code);
    expect(error.message).toContain(message);
  });
});

describe('config files', () => {
  it('merges an included file where the include stands, keeping its own positions', () => {
    const parsed = parseConfigFile(join(fixtures, 'main.conf'), { env: {} });
    expect(parsed.data.max_subscriptions).toBe(75);
    expect(parsed.positions.get('max_subscriptions')).toEqual({
      file: join(fixtures, 'limits.conf'),
      line: 2,
    });
    expect(parsed.data.server_name).toBe('from-variable');
  });

  it('names the including file and line when an include is missing', () => {
    const error = errorOf(() =>
      parseConfigText('\ninclude "nope.conf"', join(fixtures, 'x.conf'), { env: {} }),
    );
    expect(error.code).toBe('CONFIG_INCLUDE');
    expect(error.message).toMatch(/x\.conf:2: cannot read config file .*nope\.conf \(ENOENT\)/);
  });

  it('detects include cycles', () => {
    const error = errorOf(() => parseConfigFile(join(fixtures, 'cycle-a.conf'), { env: {} }));
    expect(error.code).toBe('CONFIG_INCLUDE');
    expect(error.message).toContain('include cycle');
  });

  it('reports a missing top-level file', () => {
    const error = errorOf(() => parseConfigFile(join(fixtures, 'absent.conf')));
    expect(error.code).toBe('CONFIG_READ');
  });
});
