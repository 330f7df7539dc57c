import { describe, expect, it } from 'vitest';
import { Sublist, type SublistEntry } from '../src/sublist.js';

const sub = (subject: string, queue?: string): SublistEntry => ({ subject, queue });
const subjects = (result: { psubs: readonly SublistEntry[] }) =>
  result.psubs.map((s) => s.subject).sort();

describe('Sublist', () => {
  it('matches literals, * for one token and > for one or more trailing tokens', () => {
    const list = new Sublist<SublistEntry>();
    for (const s of ['foo.bar', 'foo.*', 'foo.>', '*.bar', '>', 'foo.bar.baz', 'foo', '*.*.baz']) {
      expect(list.insert(sub(s))).toBe(true);
    }
    expect(subjects(list.match('foo.bar'))).toEqual(['*.bar', '>', 'foo.*', 'foo.>', 'foo.bar']);
    expect(subjects(list.match('foo'))).toEqual(['>', 'foo']);
    expect(subjects(list.match('foo.bar.baz'))).toEqual(['*.*.baz', '>', 'foo.>', 'foo.bar.baz']);
    expect(subjects(list.match('nope'))).toEqual(['>']);
  });

  it('takes wildcard tokens of a published subject literally', () => {
    const list = new Sublist<SublistEntry>();
    for (const s of ['foo.bar', 'foo.*', 'foo.>']) list.insert(sub(s));
    expect(subjects(list.match('foo.*'))).toEqual(['foo.*', 'foo.>']);
  });

  it('matches nothing for a subject with an empty token', () => {
    const list = new Sublist<SublistEntry>();
    list.insert(sub('>'));
    expect(list.match('foo..bar').psubs).toEqual([]);
    expect(list.match('.foo').psubs).toEqual([]);
    expect(list.match('foo.').psubs).toEqual([]);
  });

  it('refuses invalid subscribe subjects', () => {
    const list = new Sublist<SublistEntry>();
    for (const s of ['', 'foo..bar', '.foo', 'foo.', 'foo.>.bar']) {
      expect(list.insert(sub(s)), s).toBe(false);
    }
    expect(list.count).toBe(0);
    expect(list.insert(sub('foo.b*r'))).toBe(true);
    expect(subjects(list.match('foo.b*r'))).toEqual(['foo.b*r']);
    expect(list.match('foo.bar').psubs).toEqual([]);
  });

  it('takes any character but a dot in a token, as nats-server takes any byte', () => {
    const list = new Sublist<SublistEntry>();
    // A form feed, and two invalid UTF-8 bytes as the parser decodes them (0xff and 0xfe).
    for (const s of ['a\fb', '\udcff.a', '\udcfe.a', '\udcff.*']) {
      expect(list.insert(sub(s)), s).toBe(true);
    }
    expect(subjects(list.match('a\fb'))).toEqual(['a\fb']);
    expect(subjects(list.match('\udcff.a'))).toEqual(['\udcff.*', '\udcff.a']);
    expect(subjects(list.match('\udcfe.a'))).toEqual(['\udcfe.a']);
    expect(list.match('\ufffd.a').psubs).toEqual([]);
  });

  it('groups queue subscriptions by name across different patterns', () => {
    const list = new Sublist<SublistEntry>();
    const a = sub('orders.*', 'workers');
    const b = sub('orders.>', 'workers');
    const c = sub('orders.new', 'auditors');
    const plain = sub('orders.new');
    for (const s of [a, b, c, plain]) list.insert(s);
    const result = list.match('orders.new');
    expect(result.psubs).toEqual([plain]);
    const groups = result.qsubs.map((g) =>
      [...g].sort((x, y) => x.subject.localeCompare(y.subject)),
    );
    expect(groups).toHaveLength(2);
    expect(groups).toContainEqual([c]);
    expect(groups).toContainEqual([a, b]);
  });

  it('updates cached results when subscriptions come and go', () => {
    const list = new Sublist<SublistEntry>();
    const star = sub('a.*');
    list.insert(star);
    expect(subjects(list.match('a.b'))).toEqual(['a.*']);
    expect(list.match('a.b')).toBe(list.match('a.b'));
    const all = sub('>');
    list.insert(all);
    expect(subjects(list.match('a.b'))).toEqual(['>', 'a.*']);
    list.remove(star);
    expect(subjects(list.match('a.b'))).toEqual(['>']);
    list.remove(all);
    expect(subjects(list.match('a.b'))).toEqual([]);
  });

  it('answers a subject matched again and again anew once a subscription to it comes or goes', () => {
    const list = new Sublist<SublistEntry>();
    const first = sub('x');
    list.insert(first);
    for (let i = 0; i < 3; i++) expect(subjects(list.match('x'))).toEqual(['x']);
    const second = sub('x');
    list.insert(second);
    expect(list.match('x').psubs).toEqual([first, second]);
    expect(list.match('x').psubs).toEqual([first, second]);
    list.remove(first);
    expect(list.match('x').psubs).toEqual([second]);
    list.remove(second);
    expect(list.match('x').psubs).toEqual([]);
    expect(list.stats()).toMatchObject({ num_matches: 7, cache_hit_rate: 3 / 7 });
  });

  it('keeps unrelated cache entries when a subscription changes', () => {
    const list = new Sublist<SublistEntry>();
    list.insert(sub('x'));
    const cached = list.match('x');
    list.insert(sub('y'));
    expect(list.match('x')).toBe(cached);
  });

  it('removes exactly the given subscription and prunes empty branches', () => {
    const list = new Sublist<SublistEntry>();
    const first = sub('a.b.c');
    const second = sub('a.b.c');
    list.insert(first);
    list.insert(second);
    expect(list.remove(first)).toBe(true);
    expect(list.remove(first)).toBe(false);
    expect(list.match('a.b.c').psubs).toEqual([second]);
    expect(list.remove(second)).toBe(true);
    expect(list.remove(sub('never.there'))).toBe(false);
    expect(list.count).toBe(0);
    expect(list.all()).toEqual([]);
  });

  it('reports nats-server style statistics', () => {
    const list = new Sublist<SublistEntry>();
    list.insert(sub('a'));
    list.insert(sub('>'));
    list.match('a');
    list.match('a');
    list.match('b');
    expect(list.stats()).toEqual({
      num_subscriptions: 2,
      num_cache: 2,
      num_inserts: 2,
      num_removes: 0,
      num_matches: 3,
      cache_hit_rate: 1 / 3,
      max_fanout: 2,
      avg_fanout: 1.5,
    });
  });

  it('bounds its cache', () => {
    const list = new Sublist<SublistEntry>();
    list.insert(sub('>'));
    for (let i = 0; i < 5000; i++) list.match(`s.${i}`);
    expect(list.stats().num_cache).toBeLessThanOrEqual(1024);
  });

  it('matches subjects published once without caching them, keeping the cache for the rest', () => {
    const list = new Sublist<SublistEntry>();
    list.insert(sub('$JS.ACK.S.C.>'));
    list.insert(sub('orders'));
    list.match('orders');
    for (let i = 0; i < 2000; i++) {
      expect(subjects(list.match(`$JS.ACK.S.C.1.${i}.${i}.0.0`, true))).toEqual(['$JS.ACK.S.C.>']);
    }
    expect(list.stats().num_cache).toBe(1);
    list.match('orders');
    expect(list.stats().cache_hit_rate).toBe(1 / 2002);
  });
});
