import {
  hasWildcard,
  isSubsetMatch,
  isValidQueueName,
  isValidSubscribeSubject,
  subjectMatches,
} from '@slipstream/protocol';
import { ServerError } from '../errors.js';
import type { PermissionsOptions } from './auth-options.js';
import { DecisionCache } from './decision-cache.js';
import { DEFAULT_RESPONSES, ResponseAllowance } from './responses.js';

/** One permission entry: a subject (wildcards allowed), and for subscribe a queue group. */
interface Rule {
  readonly subject: string;
  readonly queue: string | undefined;
}

/**
 * The rules of a list that match a subject, as nats-server's permission sublists answer:
 * whether a plain entry matches, and the queue names of the queue entries that match. The
 * subject is compared token by token as a literal, so `foo.>` is matched by `foo.*` (the `*`
 * entry takes the `>` token), exactly as nats-server matches it.
 */
function matching(rules: readonly Rule[], subject: string): { plain: boolean; queues: string[] } {
  let plain = false;
  const queues: string[] = [];
  for (const rule of rules) {
    if (!subjectMatches(subject, rule.subject)) continue;
    if (rule.queue === undefined) plain = true;
    else queues.push(rule.queue);
  }
  return { plain, queues };
}

/** nats-server's queueMatches: the queue is one of the names, or inside a wildcard name. */
function queueAmong(queue: string, names: readonly string[]): boolean {
  return names.some((name) => queue === name || (hasWildcard(name) && isSubsetMatch(queue, name)));
}

function parseRules(list: readonly string[], where: string, queues: boolean): Rule[] {
  return list.map((entry) => {
    const [subject = '', queue, ...rest] = entry.trim().split(/\s+/);
    const valid =
      isValidSubscribeSubject(subject) &&
      rest.length === 0 &&
      (queue === undefined || (queues && isValidQueueName(queue)));
    if (!valid) {
      throw new ServerError(
        'INVALID_OPTION',
        `${where}: ${JSON.stringify(entry)} is not a valid subject`,
      );
    }
    return { subject, queue };
  });
}

/**
 * One user's permissions, compiled once and shared by all of the user's connections; each
 * connection asks through its own {@link ConnectionPermissions}, which caches the answers.
 */
export class UserPermissions {
  /** Undefined = every subject; an empty list = none (nats-server's publish allow). */
  readonly publishAllow: readonly Rule[] | undefined;
  readonly publishDeny: readonly Rule[];
  /** Undefined (or, as nats-server, an empty list) = every subject. */
  readonly subscribeAllow: readonly Rule[] | undefined;
  readonly subscribeDeny: readonly Rule[];
  readonly responses: { readonly max: number; readonly expires: number } | undefined;

  constructor(options: PermissionsOptions, where = 'permissions') {
    const { publish, subscribe, allowResponses } = options;
    this.responses =
      allowResponses === true
        ? DEFAULT_RESPONSES
        : typeof allowResponses === 'object'
          ? {
              // 0 means the default, as nats-server's validateResponsePermissions has it.
              max: allowResponses.max || DEFAULT_RESPONSES.max,
              expires: allowResponses.expires || DEFAULT_RESPONSES.expires,
            }
          : undefined;
    // Responses without a publish allow list turn the blanket publish allowance off.
    const publishAllow = publish?.allow ?? (this.responses ? [] : undefined);
    this.publishAllow = publishAllow && parseRules(publishAllow, `${where}.publish.allow`, false);
    this.publishDeny = parseRules(publish?.deny ?? [], `${where}.publish.deny`, false);
    const subscribeAllow = subscribe?.allow;
    this.subscribeAllow =
      subscribeAllow && subscribeAllow.length > 0
        ? parseRules(subscribeAllow, `${where}.subscribe.allow`, true)
        : undefined;
    this.subscribeDeny = parseRules(subscribe?.deny ?? [], `${where}.subscribe.deny`, true);
  }

  /** Whether publishing to `subject` is allowed by the lists alone (allow_responses aside). */
  publishAllowed(subject: string): boolean {
    if (this.publishAllow && !matching(this.publishAllow, subject).plain) return false;
    return !matching(this.publishDeny, subject).plain;
  }

  /** nats-server's canSubscribe, queue entries included. */
  subscribeAllowed(subject: string, queue: string | undefined): boolean {
    let allowed = true;
    if (this.subscribeAllow) {
      const match = matching(this.subscribeAllow, subject);
      allowed = match.plain;
      // A queue entry that matches the subject decides for queue subscriptions.
      if (queue !== undefined && match.queues.length > 0) allowed = queueAmong(queue, match.queues);
    }
    if (allowed && this.subscribeDeny.length > 0) {
      const match = matching(this.subscribeDeny, subject);
      allowed = !match.plain;
      if (queue !== undefined && match.queues.length > 0)
        allowed = !queueAmong(queue, match.queues);
    }
    return allowed;
  }

  /** Whether a subscription on the wildcard `subject` could receive messages on a denied subject. */
  coversDenied(subject: string): boolean {
    if (!hasWildcard(subject)) return false;
    return this.subscribeDeny.some((rule) => isSubsetMatch(rule.subject, subject));
  }

  /** Whether a message on the literal `subject` is one the user may not receive. */
  receiveDenied(subject: string): boolean {
    return matching(this.subscribeDeny, subject).plain;
  }

  forConnection(): ConnectionPermissions {
    return new ConnectionPermissions(this);
  }
}

/**
 * A connection's view of its user's permissions. Publish answers are cached per subject, since
 * they sit on the publish path; so are the answers of the delivery filter that keeps messages
 * on denied subjects away from a wildcard subscription that covers them.
 */
export class ConnectionPermissions {
  readonly #user: UserPermissions;
  readonly #published = new DecisionCache();
  readonly #received = new DecisionCache();
  /** allow_responses: the reply subjects this connection may answer. */
  readonly responses: ResponseAllowance | undefined;

  constructor(user: UserPermissions) {
    this.#user = user;
    this.responses = user.responses && new ResponseAllowance(user.responses);
  }

  canPublish(subject: string): boolean {
    const cached = this.#published.get(subject);
    if (cached !== undefined) return cached;
    const allowed = this.#user.publishAllowed(subject);
    // A response allowance is counted per publish, so its answer is never cached.
    if (!allowed && this.responses) return this.responses.allows(subject);
    this.#published.set(subject, allowed);
    return allowed;
  }

  canSubscribe(subject: string, queue: string | undefined): boolean {
    return this.#user.subscribeAllowed(subject, queue);
  }

  /**
   * For a new subscription: a filter that refuses messages on denied subjects, when the
   * subscription's wildcard covers any; undefined when it cannot receive any.
   */
  deliveryFilter(subject: string): ((messageSubject: string) => boolean) | undefined {
    if (!this.#user.coversDenied(subject)) return undefined;
    return this.#refused;
  }

  readonly #refused = (messageSubject: string): boolean => {
    let denied = this.#received.get(messageSubject);
    if (denied === undefined) {
      denied = this.#user.receiveDenied(messageSubject);
      this.#received.set(messageSubject, denied);
    }
    return denied;
  };
}
