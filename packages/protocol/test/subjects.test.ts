import { describe, expect, it } from 'vitest';
import {
  hasWildcard,
  isSubsetMatch,
  isValidPublishSubject,
  isValidQueueName,
  isValidSubscribeSubject,
  subjectMatches,
  subjectsCollide,
  tokenize,
} from '../src/subjects.js';

describe('isValidSubscribeSubject', () => {
  it.each([
    'foo',
    'foo.bar',
    'foo.bar.*',
    'foo.bar.>',
    '*',
    '>',
    '*.*.>',
    'foo.*.baz',
    // wildcard characters inside a longer token are literal characters
    'foo*',
    'foo**',
    'foo.**',
    'foo*bar',
    'foo.*bar',
    'foo*.bar',
    '*bar',
    'foo>',
    'foo.>>',
    'foo>bar',
    'foo.>bar',
    'foo>.bar',
    '>bar',
    'foo.b*r',
    '$JS.API.STREAM.INFO.ORDERS',
    '_INBOX.abc',
    'ünïcødé.主题.🚀',
  ])('accepts %j', (subject) => {
    expect(isValidSubscribeSubject(subject)).toBe(true);
  });

  it.each([
    '',
    '.',
    '..',
    '.foo',
    'foo.',
    'foo..bar',
    '>.bar',
    'foo.>.bar',
    'foo.>.*',
    '>.>',
    'foo bar',
    'foo.b ar',
    ' foo',
    'foo.\tbar',
    'foo\n',
    'foo\r.bar',
    'foo.\f',
    ' ',
  ])('rejects %j', (subject) => {
    expect(isValidSubscribeSubject(subject)).toBe(false);
  });
});

describe('isValidPublishSubject', () => {
  it.each(['foo', 'foo.bar', 'foo.b*r', 'foo>', '*bar', 'foo.>bar', 'a.b.c.d.e', 'ünï.cødé'])(
    'accepts literal %j',
    (subject) => {
      expect(isValidPublishSubject(subject)).toBe(true);
    },
  );

  it.each(['*', '>', 'foo.*', 'foo.>', '*.bar', 'foo.*.bar', '', 'foo..bar', 'foo bar', 'foo.'])(
    'rejects %j',
    (subject) => {
      expect(isValidPublishSubject(subject)).toBe(false);
    },
  );
});

describe('hasWildcard', () => {
  it.each([
    ['foo', false],
    ['foo.bar', false],
    ['foo*.bar', false],
    ['foo.b*r', false],
    ['foo.>x', false],
    ['*', true],
    ['>', true],
    ['foo.*', true],
    ['foo.>', true],
    ['foo.*.>', true],
    ['foo.*.bar', true],
    ['foo.bar.>', true],
    // not validated, like nats-server's subjectHasWildcard
    ['foo..*', true],
  ] as const)('%j -> %s', (subject, expected) => {
    expect(hasWildcard(subject)).toBe(expected);
  });
});

describe('isValidQueueName', () => {
  it.each(['workers', 'q.1', 'a*', '>', 'q-1_2', 'ünï'])('accepts %j', (q) => {
    expect(isValidQueueName(q)).toBe(true);
  });
  it.each(['', ' ', 'a b', 'a\tb', 'a\n', '\r'])('rejects %j', (q) => {
    expect(isValidQueueName(q)).toBe(false);
  });
});

describe('tokenize', () => {
  it('splits on dots and keeps empty tokens', () => {
    expect(tokenize('a.b.>')).toEqual(['a', 'b', '>']);
    expect(tokenize('foo')).toEqual(['foo']);
    expect(tokenize('foo..bar')).toEqual(['foo', '', 'bar']);
    expect(tokenize('.foo.')).toEqual(['', 'foo', '']);
  });
});

describe('subjectMatches', () => {
  it.each([
    ['foo', 'foo', true],
    ['foo', 'bar', false],
    ['foo', '*', true],
    ['foo', '>', true],
    ['foo.bar', '>', true],
    ['foo.bar', 'foo.>', true],
    ['foo.bar', 'bar.>', false],
    ['foo', 'foo.>', false],
    ['stats.test.22', 'stats.>', true],
    ['stats.test.22', 'stats.*.*', true],
    ['foo.bar', 'foo', false],
    ['foo', 'foo.bar', false],
    ['stats.test.foos', 'stats.test.foos', true],
    ['stats.test.foos', 'stats.test.foo', false],
    ['stats.test.foo', 'stats.test.foos', false],
    ['stats.test', 'stats.test.*', false],
    ['stats.test.foos', 'stats.*', false],
    ['stats.test.foos', 'stats.*.*.foos', false],
    ['a.b.c', '*.b.*', true],
    ['a.x.c', '*.b.*', false],
    ['a.b.c.d', 'a.*.>', true],
    ['a.b', 'a.*.>', false],
    // wildcard characters that are not whole tokens are literals
    ['*bar', '*bar', true],
    ['xbar', '*bar', false],
    ['foo*', 'foo*', true],
    ['foo*bar', 'foo*bar', true],
    ['foo.***.bar', 'foo.***.bar', true],
    ['>bar', '>bar', true],
    ['foo>', 'foo>', true],
    ['foo.>>>.bar', 'foo.>>>.bar', true],
    ['foo.b*r', 'foo.*', true],
    ['foo.bar', 'foo.b*r', false],
    // a (non-pedantic) wildcard publish subject is compared literally
    ['foo.*', 'foo.*', true],
    ['foo.*', 'foo.bar', false],
    ['ünï.主题', 'ünï.*', true],
    ['ünï.主题', 'ünï.主', false],
  ] as const)('%j on %j -> %s', (subject, pattern, expected) => {
    expect(subjectMatches(subject, pattern)).toBe(expected);
  });
});

describe('subjectsCollide', () => {
  it.each([
    ['foo', 'foo', true],
    ['foo', 'bar', false],
    ['foo.*', 'foo.bar', true],
    ['foo.*', '*.bar', true],
    ['a.*', '*.b', true],
    ['foo.>', 'foo.bar.baz', true],
    ['foo.>', 'foo', false],
    ['foo.*', 'foo.bar.baz', false],
    ['foo.*', 'foo.*.*', false],
    ['foo.*', 'foo.>', true],
    ['foo.*.baz', 'foo.bar.*', true],
    ['foo.*.baz', 'foo.bar.qux', false],
    ['>', 'anything.at.all', true],
    ['>', '*', true],
    ['*', 'foo.bar', false],
    ['foo.>', 'bar.>', false],
    ['foo.>', '*.>', true],
    ['orders.>', 'orders.new', true],
    ['orders.new', 'orders.paid', false],
    ['a.*.c', 'a.b.>', true],
    ['events.a', 'events.a.b', false],
    // exact where nats-server compares only the common prefix
    ['foo.*', 'foo.bar.>', false],
    ['foo.*.*', 'foo.bar.>', true],
    // literal wildcard characters
    ['foo.b*r', 'foo.bar', false],
    ['foo.b*r', 'foo.*', true],
    // invalid subjects never collide
    ['foo..bar', 'foo.*.bar', false],
    ['foo.>.bar', '>', false],
    ['', '>', false],
  ] as const)('%j vs %j -> %s', (a, b, expected) => {
    expect(subjectsCollide(a, b)).toBe(expected);
    expect(subjectsCollide(b, a)).toBe(expected);
  });
});

describe('isSubsetMatch', () => {
  it.each([
    // nats-server's TestIsSubsetMatch table
    ['foo.bar', 'foo.bar', true],
    ['foo.*', '>', true],
    ['foo.*', '*.*', true],
    ['foo.*', 'foo.*', true],
    ['foo.*', 'foo.bar', false],
    ['foo.>', '>', true],
    ['foo.>', '*.>', true],
    ['foo.>', 'foo.>', true],
    ['foo.>', 'foo.bar', false],
    ['foo..bar', 'foo.*', false],
    ['foo.*', 'foo..bar', false],
    // more
    ['foo.bar', 'foo.*', true],
    ['foo.bar.baz', 'foo.>', true],
    ['foo', 'foo.>', false],
    ['foo.>', 'foo.*', false],
    ['foo.>', 'foo.*.>', false],
    ['foo.*.>', 'foo.>', true],
    ['foo.*', 'foo.*.*', false],
    ['*', '>', true],
    ['>', '*', false],
    ['>', '>', true],
    ['*.bar', 'foo.*', false],
    ['foo.b*r', 'foo.*', true],
    ['foo.*', 'foo.b*r', false],
    ['a.b', 'a.b.c', false],
  ] as const)('%j within %j -> %s', (subject, pattern, expected) => {
    expect(isSubsetMatch(subject, pattern)).toBe(expected);
  });
});
