import { hasWildcard, subjectMatches } from '@slipstream/protocol';

/** What the sublist needs from a subscription; the server's subscriptions carry more. */
export interface SublistEntry {
  readonly subject: string;
  readonly queue: string | undefined;
}

/** Everything interested in one subject: plain subscriptions, and queue subscriptions grouped by queue name. */
export interface SublistResult<S extends SublistEntry> {
  readonly psubs: readonly S[];
  readonly qsubs: readonly (readonly S[])[];
}

/** The figures /subsz reports (nats-server's SublistStats field names). */
export interface SublistStats {
  num_subscriptions: number;
  num_cache: number;
  num_inserts: number;
  num_removes: number;
  num_matches: number;
  cache_hit_rate: number;
  max_fanout: number;
  avg_fanout: number;
}

class TrieNode<S> {
  readonly literals = new Map<string, TrieNode<S>>();
  /** Child for a `*` token. */
  star: TrieNode<S> | undefined;
  /** Child for a `>` token. */
  rest: TrieNode<S> | undefined;
  readonly psubs = new Set<S>();
  readonly qsubs = new Map<string, Set<S>>();

  isEmpty(): boolean {
    return (
      this.literals.size === 0 &&
      !this.star &&
      !this.rest &&
      this.psubs.size === 0 &&
      this.qsubs.size === 0
    );
  }
}

/** nats-server caps its match cache at 1024 subjects (slCacheMax). */
const CACHE_MAX = 1024;

/** Shared by every result without subscriptions of a kind (results are never mutated). */
const NONE: readonly never[] = Object.freeze([]);
const EMPTY_RESULT: SublistResult<never> = Object.freeze({ psubs: NONE, qsubs: NONE });

/**
 * Subject interest: a trie keyed by subject tokens with `*` and `>` children, as nats-server's
 * sublist. Lookups are cached per published subject; a SUB or UNSUB evicts exactly the cached
 * subjects its pattern matches, so unrelated traffic keeps its cache. Results are shared and
 * must not be mutated by callers.
 */
export class Sublist<S extends SublistEntry> {
  readonly #root = new TrieNode<S>();
  readonly #cache = new Map<string, SublistResult<S>>();
  /**
   * The subject matched last and its cached result, checked before the cache: a publisher
   * mostly repeats its subject, the parser hands it out as the same string, and comparing that
   * costs less than a Map lookup. Cleared whenever the cache drops an entry.
   */
  #lastSubject: string | undefined;
  #lastResult: SublistResult<S> = EMPTY_RESULT;
  #count = 0;
  #inserts = 0;
  #removes = 0;
  #matches = 0;
  #cacheHits = 0;

  /** Number of subscriptions held. */
  get count(): number {
    return this.#count;
  }

  /**
   * Adds a subscription; false (and nothing added) when its subject has an empty token or a
   * token after `>`. Any other byte may be in a token, as in nats-server's sublist (a form feed,
   * say, or invalid UTF-8 decoded losslessly by the parser).
   */
  insert(sub: S): boolean {
    const tokens = sub.subject.split('.');
    if (!isPattern(tokens)) return false;
    let node = this.#root;
    for (const token of tokens) {
      node = this.#child(node, token);
    }
    if (sub.queue === undefined) {
      node.psubs.add(sub);
    } else {
      let group = node.qsubs.get(sub.queue);
      if (!group) node.qsubs.set(sub.queue, (group = new Set()));
      group.add(sub);
    }
    this.#count++;
    this.#inserts++;
    this.#evict(sub.subject);
    return true;
  }

  /** Removes a subscription; false when it was not there. */
  remove(sub: S): boolean {
    const path: TrieNode<S>[] = [];
    const tokens = sub.subject.split('.');
    let node: TrieNode<S> | undefined = this.#root;
    for (const token of tokens) {
      path.push(node);
      node = token === '*' ? node.star : token === '>' ? node.rest : node.literals.get(token);
      if (!node) return false;
    }
    if (sub.queue === undefined) {
      if (!node.psubs.delete(sub)) return false;
    } else {
      const group = node.qsubs.get(sub.queue);
      if (!group?.delete(sub)) return false;
      if (group.size === 0) node.qsubs.delete(sub.queue);
    }
    // Prune the branch back up while nodes are left empty, so churn does not grow the trie.
    for (let i = tokens.length - 1; i >= 0 && node.isEmpty(); i--) {
      const parent = path[i]!;
      const token = tokens[i]!;
      if (token === '*') parent.star = undefined;
      else if (token === '>') parent.rest = undefined;
      else parent.literals.delete(token);
      node = parent;
    }
    this.#count--;
    this.#removes++;
    this.#evict(sub.subject);
    return true;
  }

  /**
   * Everything interested in a published subject. A subject with an empty token (`foo..bar`)
   * matches nothing, as in nats-server; wildcard tokens in it are taken literally. A subject
   * published `once` (a request's reply subject, a JetStream ack subject: the router knows)
   * bypasses the cache.
   */
  match(subject: string, once = false): SublistResult<S> {
    this.#matches++;
    if (once) return this.#lookUp(subject, true);
    if (subject === this.#lastSubject) {
      this.#cacheHits++;
      return this.#lastResult;
    }
    const cached = this.#cache.get(subject);
    if (cached) {
      this.#cacheHits++;
      this.#lastSubject = subject;
      this.#lastResult = cached;
      return cached;
    }
    return this.#lookUp(subject, false);
  }

  /** A match the cache does not hold: walks the trie, and caches the result unless `once`. */
  #lookUp(subject: string, once: boolean): SublistResult<S> {
    if (hasEmptyToken(subject)) return EMPTY_RESULT;
    const found: Found<S> = { psubs: undefined, groups: undefined };
    collect(this.#root, subject, 0, found);
    const result: SublistResult<S> = {
      psubs: found.psubs ?? NONE,
      qsubs: found.groups ? [...found.groups.values()] : NONE,
    };
    if (once) return result;
    if (this.#cache.size >= CACHE_MAX) {
      // Oldest first: Map iteration follows insertion order.
      this.#forget(this.#cache.keys().next().value!);
    }
    this.#cache.set(subject, result);
    return result;
  }

  /** Every subscription, in trie order. */
  all(): S[] {
    const out: S[] = [];
    const walk = (node: TrieNode<S>) => {
      for (const sub of node.psubs) out.push(sub);
      for (const group of node.qsubs.values()) for (const sub of group) out.push(sub);
      for (const child of node.literals.values()) walk(child);
      if (node.star) walk(node.star);
      if (node.rest) walk(node.rest);
    };
    walk(this.#root);
    return out;
  }

  stats(): SublistStats {
    let maxFanout = 0;
    let totalFanout = 0;
    for (const result of this.#cache.values()) {
      const fanout = result.psubs.length + result.qsubs.length;
      totalFanout += fanout;
      if (fanout > maxFanout) maxFanout = fanout;
    }
    const cached = this.#cache.size;
    return {
      num_subscriptions: this.#count,
      num_cache: cached,
      num_inserts: this.#inserts,
      num_removes: this.#removes,
      num_matches: this.#matches,
      cache_hit_rate: this.#matches === 0 ? 0 : this.#cacheHits / this.#matches,
      max_fanout: maxFanout,
      avg_fanout: cached === 0 ? 0 : totalFanout / cached,
    };
  }

  #child(node: TrieNode<S>, token: string): TrieNode<S> {
    if (token === '*') return (node.star ??= new TrieNode());
    if (token === '>') return (node.rest ??= new TrieNode());
    let child = node.literals.get(token);
    if (!child) node.literals.set(token, (child = new TrieNode()));
    return child;
  }

  #evict(pattern: string): void {
    // A literal pattern matches only the identical subject: no need to scan the cache.
    if (!hasWildcard(pattern)) {
      this.#forget(pattern);
      return;
    }
    for (const subject of this.#cache.keys()) {
      if (subjectMatches(subject, pattern)) this.#forget(subject);
    }
  }

  #forget(subject: string): void {
    this.#cache.delete(subject);
    this.#lastSubject = undefined;
  }
}

/** Non-empty tokens, with `>` only as the last one. */
/**
 * What a pedantic connection may publish to, as nats-server 2.9.10 checks it: no empty token and
 * no `*` or `>` token. Like the sublist, it takes any other byte in a token (a form feed too).
 */
export function isLiteralSubject(subject: string): boolean {
  for (const token of subject.split('.')) {
    if (token.length === 0 || token === '*' || token === '>') return false;
  }
  return true;
}

function isPattern(tokens: readonly string[]): boolean {
  const last = tokens.length - 1;
  for (let i = 0; i <= last; i++) {
    const token = tokens[i]!;
    if (token.length === 0 || (token === '>' && i < last)) return false;
  }
  return true;
}

/** What a match collects, each part made once a subscription of its kind is found. */
interface Found<S> {
  psubs: S[] | undefined;
  groups: Map<string, S[]> | undefined;
}

/** Walks the trie along the token of `subject` starting at `start` (past its end: done). */
function collect<S extends SublistEntry>(
  node: TrieNode<S>,
  subject: string,
  start: number,
  found: Found<S>,
): void {
  if (start > subject.length) {
    addSubs(node, found);
    return;
  }
  // `>` needs at least one token left, which there is.
  if (node.rest) addSubs(node.rest, found);
  const dot = subject.indexOf('.', start);
  const end = dot < 0 ? subject.length : dot;
  if (node.star) collect(node.star, subject, end + 1, found);
  if (node.literals.size === 0) return;
  const literal = node.literals.get(subject.slice(start, end));
  if (literal) collect(literal, subject, end + 1, found);
}

function hasEmptyToken(subject: string): boolean {
  return (
    subject.length === 0 ||
    subject.charCodeAt(0) === 0x2e ||
    subject.charCodeAt(subject.length - 1) === 0x2e ||
    subject.includes('..')
  );
}

/** Queue members found at different trie nodes under the same queue name form one group. */
function addSubs<S>(node: TrieNode<S>, found: Found<S>): void {
  if (node.psubs.size > 0) {
    // Usually the only node with subscribers: its array is then made at its exact size.
    if (found.psubs) for (const sub of node.psubs) found.psubs.push(sub);
    else found.psubs = [...node.psubs];
  }
  if (node.qsubs.size === 0) return;
  const groups = (found.groups ??= new Map());
  for (const [queue, members] of node.qsubs) {
    const group = groups.get(queue);
    if (group) group.push(...members);
    else groups.set(queue, [...members]);
  }
}
