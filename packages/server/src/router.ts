import { type DeliveryRefusal, deliveryTrace } from './delivery-trace.js';
import { FramePartsCache, OutgoingMessage } from './outgoing-message.js';
import { Sublist, type SublistResult } from './sublist.js';
import type { Subscriber, Subscription } from './subscription.js';

/** The status block nats-server sends for a request nobody listens to: `NATS/1.0 503` and a blank line. */
const NO_RESPONDERS = Buffer.from('NATS/1.0 503\r\n\r\n');
const EMPTY = new Uint8Array(0);

/**
 * Subject interest and message fan-out for one account's subject space (each account has its
 * own router, so accounts never see each other's traffic): every plain subscription whose
 * subject matches gets the message, and each queue group gets it once, on a member picked at
 * random (a member that cannot take it, e.g. the publisher's own with echo off, is skipped).
 *
 * An internal subscriber may publish while it is being delivered to (a reply from inside the
 * fan-out), so publish is re-entrant: each nesting level encodes into its own message object.
 */
/**
 * A JetStream ack subject names one delivery and is published once, like a reply subject:
 * caching its match or line start would cost a lookup, an insert and an eviction per ack and push
 * out the subjects that do come back.
 */
const PUBLISHED_ONCE_PREFIX = '$JS.ACK.';

export class Router {
  readonly sublist = new Sublist<Subscription>();
  readonly #parts = new FramePartsCache();
  /** One reusable message per nesting level of publish; index 0 serves the usual, unnested case. */
  readonly #messages: OutgoingMessage[] = [];
  #depth = 0;
  readonly #subscribed = new Set<(sub: Subscription) => void>();
  readonly #unsubscribed = new Set<(sub: Subscription) => void>();

  /** Queue members of cluster members (routes): while there are none, no draw includes them. */
  #clusterQueueMembers = 0;

  /** False when the subject is not a valid subscribe subject. */
  subscribe(sub: Subscription): boolean {
    if (!this.sublist.insert(sub)) return false;
    if (sub.queue !== undefined && sub.subscriber.clusterMember) this.#clusterQueueMembers++;
    for (const listener of this.#subscribed) listener(sub);
    return true;
  }

  /**
   * Calls `listener` with every new subscription until the returned function is called: how
   * a JetStream push consumer learns that someone listens again, instead of looking.
   */
  onSubscribe(listener: (sub: Subscription) => void): () => void {
    this.#subscribed.add(listener);
    return () => this.#subscribed.delete(listener);
  }

  /**
   * Calls `listener` with every removed subscription until the returned function is called: how
   * a service import learns that a requester no longer listens for its answers.
   */
  onUnsubscribe(listener: (sub: Subscription) => void): () => void {
    this.#unsubscribed.add(listener);
    return () => this.#unsubscribed.delete(listener);
  }

  unsubscribe(sub: Subscription): void {
    if (sub.closed) return;
    sub.closed = true;
    this.sublist.remove(sub);
    if (sub.queue !== undefined && sub.subscriber.clusterMember) this.#clusterQueueMembers--;
    for (const listener of this.#unsubscribed) listener(sub);
  }

  /**
   * Routes one publish to the subscribers of `subject`. With `shownSubject` the receivers see
   * that subject instead, as JetStream delivers a stored message to a consumer's deliver or
   * reply subject under the subject it was published on.
   */
  publish(
    from: Subscriber,
    subject: string,
    reply: string | undefined,
    headers: Uint8Array | undefined,
    payload: Uint8Array,
    shownSubject?: string,
  ): void {
    const delivered = this.route(from, subject, reply, headers, payload, shownSubject);
    if (!delivered && reply !== undefined && from.noResponders) this.#noResponders(from, reply);
  }

  /**
   * publish() for a client's message whose payload is `bytes[payloadStart, end)` of a socket
   * chunk: the payload's view is made only when the subject has receivers, so a publish nobody
   * listens to costs the match and nothing more.
   */
  publishBytes(
    from: Subscriber,
    subject: string,
    reply: string | undefined,
    headers: Uint8Array | undefined,
    bytes: Uint8Array,
    payloadStart: number,
    end: number,
  ): void {
    const once = publishedOnce(subject);
    const result = this.sublist.match(subject, once);
    const delivered =
      (result.psubs.length > 0 || result.qsubs.length > 0) &&
      this.#fanOut(
        result,
        from,
        subject,
        reply,
        headers,
        bytes.subarray(payloadStart, end),
        undefined,
        once,
      );
    if (!delivered && reply !== undefined && from.noResponders) this.#noResponders(from, reply);
  }

  /**
   * Routes the answer to one request to its reply subject, which names that request alone, so
   * neither the match nor the encoded line start is cached (a PubAck, an API response).
   */
  respond(
    from: Subscriber,
    reply: string,
    headers: Uint8Array | undefined,
    payload: Uint8Array,
  ): void {
    this.#route(from, reply, undefined, headers, payload, undefined, true);
  }

  /**
   * Publish without the no-responders answer: how a message another account exported or a
   * service import forwarded enters this account. True when some subscriber took it.
   */
  route(
    from: Subscriber,
    subject: string,
    reply: string | undefined,
    headers: Uint8Array | undefined,
    payload: Uint8Array,
    shownSubject?: string,
  ): boolean {
    const once = publishedOnce(subject);
    return this.#route(from, subject, reply, headers, payload, shownSubject, once);
  }

  /**
   * Routes a message another server forwarded (a leaf node's LMSG): every plain subscription
   * gets it, but only the queue groups named in `queues` do, for the sending server has already
   * picked where each of its groups is served. `shownSubject` as for publish (a JetStream
   * delivery that crossed).
   */
  routeForwarded(
    from: Subscriber,
    subject: string,
    reply: string | undefined,
    headers: Uint8Array | undefined,
    payload: Uint8Array,
    queues: readonly string[],
    shownSubject?: string,
  ): boolean {
    const once = publishedOnce(subject);
    return this.#route(from, subject, reply, headers, payload, shownSubject, once, queues);
  }

  #route(
    from: Subscriber,
    subject: string,
    reply: string | undefined,
    headers: Uint8Array | undefined,
    payload: Uint8Array,
    shownSubject: string | undefined,
    once: boolean,
    queueFilter?: readonly string[],
  ): boolean {
    const result = this.sublist.match(subject, once);
    if (result.psubs.length === 0 && result.qsubs.length === 0) return false;
    return this.#fanOut(
      result,
      from,
      subject,
      reply,
      headers,
      payload,
      shownSubject,
      once,
      queueFilter,
    );
  }

  /** Delivers a message to the receivers `result` holds (at least one); true if one took it. */
  #fanOut(
    result: SublistResult<Subscription>,
    from: Subscriber,
    subject: string,
    reply: string | undefined,
    headers: Uint8Array | undefined,
    payload: Uint8Array,
    shownSubject: string | undefined,
    once: boolean,
    queueFilter?: readonly string[],
  ): boolean {
    let delivered = 0;
    /** Other servers' connections this message goes to, each once, with its queue groups. */
    let remotes: Map<Subscriber, string[]> | undefined;
    const receivers = result.psubs.length + result.qsubs.length;
    const message = this.#acquire(
      shownSubject ?? subject,
      reply,
      headers,
      payload,
      receivers > 1,
      once,
    );
    try {
      // Indexed loops: for-of over the shared empty result arrays showed in profiles.
      const psubs = result.psubs;
      for (let i = 0; i < psubs.length; i++) {
        const sub = psubs[i]!;
        if (sub.subscriber.deliverRemote) {
          if (sub.subscriber !== from && !remotes?.has(sub.subscriber)) {
            (remotes ??= new Map()).set(sub.subscriber, []);
          }
        } else if (this.#deliver(from, sub, message, subject)) delivered++;
      }
      const qsubs = result.qsubs;
      for (let g = 0; g < qsubs.length; g++) {
        const group = qsubs[g]!;
        if (queueFilter && !queueFilter.includes(group[0]!.queue!)) continue;
        const size = group.length;
        const start = Math.floor(Math.random() * size);
        const drawn =
          this.#clusterQueueMembers > 0 && !from.clusterMember
            ? drawClusterMember(group, from)
            : undefined;
        let remote: Subscription | undefined = drawn;
        let remoteWeight = 0;
        let taken = false;
        for (let i = 0; i < size && !drawn; i++) {
          const sub = group[(start + i) % size]!;
          if (sub.subscriber.deliverRemote) {
            // One of the other servers' members, drawn by the weights they announced.
            if (sub.subscriber !== from && !sub.closed) {
              const weight = sub.weight;
              remoteWeight += weight;
              if (Math.random() * remoteWeight < weight) remote = sub;
            }
          } else if (this.#deliver(from, sub, message, subject)) {
            delivered++;
            taken = true;
            break;
          }
        }
        if (!taken && remote) {
          remotes ??= new Map();
          const queues = remotes.get(remote.subscriber);
          if (queues) queues.push(remote.queue!);
          else remotes.set(remote.subscriber, [remote.queue!]);
        }
      }
      if (remotes) {
        for (const [subscriber, queues] of remotes) {
          if (subscriber.deliverRemote!(message, subject, queues, from)) delivered++;
        }
      }
    } finally {
      this.#release(message);
    }
    return delivered > 0;
  }

  #deliver(
    from: Subscriber,
    sub: Subscription,
    message: OutgoingMessage,
    subject: string,
  ): boolean {
    const refusal: DeliveryRefusal | undefined =
      sub.subscriber === from && !from.echo
        ? 'echo'
        : sub.refuses?.(subject)
          ? 'deny'
          : sub.closed
            ? 'closed'
            : undefined;
    const trace = deliveryTrace();
    if (trace) return trace.deliver(sub, refusal, () => this.#send(sub, message, subject, from));
    return refusal === undefined && this.#send(sub, message, subject, from);
  }

  #send(sub: Subscription, message: OutgoingMessage, subject: string, from: Subscriber): boolean {
    sub.delivered++;
    const taken = sub.subscriber.deliver(sub, message, subject, from);
    if (sub.max !== undefined && sub.delivered >= sub.max) sub.subscriber.removeSubscription(sub);
    return taken;
  }

  /**
   * The publisher asked (CONNECT no_responders) to learn at once that a request has no
   * receivers: an empty HMSG with status 503 on the publisher's own subscription to the reply.
   */
  #noResponders(from: Subscriber, reply: string): void {
    const sub = this.sublist
      .match(reply, true)
      .psubs.find((s) => s.subscriber === from && !s.closed);
    if (!sub) return;
    const message = this.#acquire(reply, undefined, NO_RESPONDERS, EMPTY, false, true);
    try {
      this.#send(sub, message, reply, from);
    } finally {
      this.#release(message);
    }
  }

  #acquire(
    subject: string,
    reply: string | undefined,
    headers: Uint8Array | undefined,
    payload: Uint8Array,
    shared: boolean,
    once = false,
  ): OutgoingMessage {
    const message = (this.#messages[this.#depth++] ??= new OutgoingMessage(this.#parts));
    return message.reset(subject, reply, headers, payload, shared, once);
  }

  #release(message: OutgoingMessage): void {
    message.release();
    this.#depth--;
  }
}

/** A subject under PUBLISHED_ONCE_PREFIX; the first character is compared inline first. */
function publishedOnce(subject: string): boolean {
  return subject.charCodeAt(0) === 0x24 && subject.startsWith(PUBLISHED_ONCE_PREFIX);
}

/**
 * nats-server's draw of a queue member across its cluster: each local member counts once, each
 * route's by the members it announced; the route member drawn, or undefined when the draw fell
 * on a local one (or the group has no route member), which the usual pass then serves.
 */
function drawClusterMember(
  group: readonly Subscription[],
  from: Subscriber,
): Subscription | undefined {
  let total = 0;
  let routed = false;
  for (const sub of group) {
    if (sub.closed || (sub.subscriber === from && !from.echo)) continue;
    if (sub.subscriber.clusterMember) {
      total += sub.weight;
      routed = true;
    } else if (!sub.subscriber.deliverRemote) total += 1;
  }
  if (!routed) return undefined;
  let draw = Math.random() * total;
  for (const sub of group) {
    if (sub.closed || (sub.subscriber === from && !from.echo)) continue;
    if (sub.subscriber.clusterMember) draw -= sub.weight;
    else if (!sub.subscriber.deliverRemote) draw -= 1;
    else continue;
    if (draw < 0) return sub.subscriber.clusterMember ? sub : undefined;
  }
  return undefined;
}
