import { hasWildcard, subjectMatches } from '@slipstream/protocol';
import type { UserPermissions } from '../auth/permissions.js';

/** One direction's subjects as a leaf INFO's `import` and `export` carry them (nats-server's SubjectPermission). */
export interface SubjectLists {
  allow?: string[];
  deny?: string[];
}

/**
 * The subjects one direction of a leaf connection is limited to. An entry naming a queue group
 * (`subject queue`) never matches: nats-server's permission lists hold those apart from the
 * plain subjects that a message or an interest is matched against.
 */
class SubjectRules {
  /** Undefined: every subject (less the denied ones). */
  readonly #allow: readonly string[] | undefined;
  readonly #deny: readonly string[];

  constructor(allow: readonly string[] | undefined, deny: readonly string[]) {
    this.#allow = allow;
    this.#deny = deny;
  }

  /** A message's subject (nats-server's pubAllowed). */
  allows(subject: string): boolean {
    if (this.#allow && !this.#allow.some((rule) => subjectMatches(subject, rule))) return false;
    return !this.#deny.some((rule) => subjectMatches(subject, rule));
  }

  /**
   * An interest's subject (nats-server's canSubscribe for a leaf connection): a wildcard broader
   * than an allowed subject passes too, for its messages are pruned on the way out.
   */
  allowsInterest(subject: string): boolean {
    const allow = this.#allow;
    if (
      allow &&
      !allow.some((rule) => subjectMatches(subject, rule)) &&
      !(hasWildcard(subject) && allow.some((rule) => subjectMatches(rule, subject)))
    ) {
      return false;
    }
    return !this.#deny.some((rule) => subjectMatches(subject, rule));
  }
}

/**
 * What one leaf connection may carry, as nats-server 2.9.10 keeps it on the connection: the
 * subjects whose messages go out on it (`send`: its publish permissions, checked on delivery)
 * and those whose interest is announced on it (`announce`: its subscribe permissions).
 */
export class LeafPermissions {
  constructor(
    readonly send: SubjectRules,
    readonly announce: SubjectRules,
    /** What the hub's INFO tells the leaf (the user's lists as configured), on the hub's side. */
    readonly forLeaf?: { import: SubjectLists | undefined; export: SubjectLists | undefined },
  ) {}

  /** A connection without permissions: everything but `deniedSends` goes out and is announced. */
  static open(deniedSends: readonly string[] = []): LeafPermissions {
    return new LeafPermissions(new SubjectRules(undefined, deniedSends), OPEN);
  }

  /**
   * The hub's side of a leaf that logged in as a user with permissions. They are the user's
   * seen from its side (nats-server's swap in processLeafNodeConnect): what it may subscribe to
   * is what we send it, what it may publish is the interest we announce to it, since it only
   * sends where there is interest. `deniedSends` is the CONNECT's `deny_pub` (the leaf's
   * deny_imports). The user's lists go back to the leaf in the INFO, `import` its subscribe and
   * `export` its publish, for it to enforce on its side.
   */
  static ofLeafUser(user: UserPermissions, deniedSends: readonly string[]): LeafPermissions {
    const subscribeAllow = user.subscribeAllow && plain(user.subscribeAllow);
    const subscribeDeny = plain(user.subscribeDeny);
    const publishAllow = user.publishAllow && plain(user.publishAllow);
    const publishDeny = plain(user.publishDeny);
    return new LeafPermissions(
      new SubjectRules(subscribeAllow, [...subscribeDeny, ...deniedSends]),
      new SubjectRules(publishAllow, publishDeny),
      { import: lists(subscribeAllow, subscribeDeny), export: lists(publishAllow, publishDeny) },
    );
  }

  /**
   * The leaf's side, from the hub's INFO (nats-server's processLeafnodeInfo): we may publish
   * (send) its `export`, less our deny_exports, and subscribe (announce interest in) its
   * `import`, less our deny_imports. An empty allow list arrives as none (the INFO omits it).
   */
  static fromHub(
    imports: SubjectLists | undefined,
    exports: SubjectLists | undefined,
    denyImports: readonly string[],
    denyExports: readonly string[],
  ): LeafPermissions {
    const allow = (given: SubjectLists | undefined) =>
      given?.allow && given.allow.length > 0 ? given.allow : undefined;
    return new LeafPermissions(
      new SubjectRules(allow(exports), [...(exports?.deny ?? []), ...denyExports]),
      new SubjectRules(allow(imports), [...(imports?.deny ?? []), ...denyImports]),
    );
  }
}

const OPEN = new SubjectRules(undefined, []);

/** The plain subjects of a compiled list (queue entries left out, see SubjectRules). */
function plain(rules: readonly { subject: string; queue: string | undefined }[]): string[] {
  return rules.filter((rule) => rule.queue === undefined).map((rule) => rule.subject);
}

/** The lists as the INFO carries them: empty ones left out, as nats-server's JSON omits them. */
function lists(allow: string[] | undefined, deny: string[]): SubjectLists | undefined {
  if (!allow?.length && deny.length === 0) return undefined;
  return { ...(allow?.length ? { allow } : {}), ...(deny.length ? { deny } : {}) };
}

/** Reads an INFO's `import` or `export`: string lists only, anything else ignored. */
export function subjectLists(value: unknown): SubjectLists | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const strings = (list: unknown) =>
    Array.isArray(list) ? list.filter((item): item is string => typeof item === 'string') : [];
  const { allow, deny } = value as { allow?: unknown; deny?: unknown };
  return { allow: strings(allow), deny: strings(deny) };
}
