/**
 * Message tracing, as nats-server 2.11 does it for one server (msgtrace.go): a publish whose
 * headers ask for it (msg-trace-request.ts) is followed through the server, and one event
 * listing what happened to it goes to the trace destination, in the publisher's account:
 * `in` (ingress: who published what, or why it was refused), `sm` (the account's subject
 * mapping), `si` / `se` (a service import or stream export carried it into another account),
 * `js` (a JetStream stream took it) and `eg` (egress: one per client subscription it went to, or
 * why not). Routing is synchronous, so the trace being followed is module state for the
 * duration of one publish; whatever an internal client publishes meanwhile is not traced.
 */
import { type DeliveryRefusal, type DeliveryTrace, followDeliveries } from './delivery-trace.js';
import { rfc3339 } from './monitoring/format.js';
import { eventBody } from './msg-trace-event.js';
import { type TraceRequest, traceRequest, withTraceHeadersDisabled } from './msg-trace-request.js';
import type { Router } from './router.js';
import type { ServerIdentity } from './server-identity.js';
import type { Subscriber, Subscription } from './subscription.js';

/** nats-server's connection kind of a client, as trace events number it. */
const CLIENT_KIND = 0;

/** Why a subscription did not get a message, in nats-server's words for an egress event. */
const REFUSALS = {
  echo: 'Not delivered because of no echo',
  deny: 'Not delivered because subscription denies this subject',
  closed: 'Not delivered because subscription is closed',
} as const satisfies Record<DeliveryRefusal, string>;

/**
 * The account of a traced publisher (an Account): its name, its `msg_trace` setting, and the
 * subject space the trace's event is published in.
 */
export interface TracedAccount {
  readonly name: string;
  readonly msgTrace: { readonly dest: string; readonly sampling: number } | undefined;
  readonly router: Router;
}

/** A client connection as a trace event names it. */
interface TracedClient {
  readonly cid: number;
  /** The client's CONNECT name; empty for none. */
  readonly name: string;
  readonly account: { readonly name: string };
}

/** The publisher of a traced message. */
export interface TracedPublisher extends TracedClient {
  readonly account: TracedAccount;
}

type TraceEvent = { type: string; ts: string } & Record<string, unknown>;

let active: MsgTrace | undefined;

/** The trace of the publish being routed now, if it is traced. */
export function activeTrace(): MsgTrace | undefined {
  return active;
}

/** Makes `trace` the one followed, the router's deliveries included; returns the one before. */
function follow(trace: MsgTrace | undefined): MsgTrace | undefined {
  const previous = active;
  active = trace;
  followDeliveries(trace);
  return previous;
}

/** Runs `work` with no trace followed: what it publishes is none of the traced message's doing. */
export function untraced<T>(work: () => T): T {
  const previous = follow(undefined);
  try {
    return work();
  } finally {
    follow(previous);
  }
}

/** A publish whose routing the tracer wants to see: route it through `run`. */
export interface TracedPublish {
  run(route: (headers: Uint8Array) => void): void;
}

/** Who trace events come from: the server itself, in the traced message's account. */
const EVENT_PUBLISHER: Subscriber = {
  cid: 0,
  echo: true,
  noResponders: false,
  deliver: () => false,
  removeSubscription: () => {},
};

/** Starts the traces of one server and sends their events. */
export class MsgTracer {
  #seq = 0;

  constructor(private readonly server: () => ServerIdentity) {}

  /**
   * What `headers` ask of tracing for this publish: undefined for nothing at all (the usual
   * case, cheap); else the publish to run traced, or untraced with its traceparent disabled
   * when the account's sampling left it out.
   */
  start(
    publisher: TracedPublisher,
    subject: string,
    headers: Uint8Array,
    size: number,
  ): TracedPublish | undefined {
    const request = traceRequest(headers);
    if (!request) return undefined;
    let dest = request.dest;
    if (request.external) {
      const own = publisher.account.msgTrace;
      if (!own) return undefined;
      // As nats-server (rand.Int31n(100) <= sampling): 1..99 is a percentage, give or take one.
      if (own.sampling < 100 && Math.floor(Math.random() * 100) > own.sampling) {
        const disabled = withTraceHeadersDisabled(request.headers)!;
        return { run: (route) => route(disabled) };
      }
      dest = own.dest;
    }
    return new MsgTrace(this, publisher, subject, request, dest, size);
  }

  /** Publishes the event of a finished trace, in the publisher's account. */
  send(
    account: TracedAccount,
    dest: string,
    body: object,
    acceptEncoding: string | undefined,
  ): void {
    const server = { ...this.server(), seq: ++this.#seq, time: rfc3339(Date.now()) };
    const { headers, payload } = eventBody(server, body, acceptEncoding);
    account.router.publish(EVENT_PUBLISHER, dest, undefined, headers, payload);
  }
}

/** A stream export being crossed: each subscription reached through it gets an `se` event. */
interface StreamExport {
  readonly account: string;
  readonly to: string;
  /** The import's subject in the exporter's space: what an egress through it names. */
  readonly subject: string;
  readonly allowed: boolean;
}

/** The JetStream side of a trace: the `js` event a stream fills in. */
export interface JetStreamTrace {
  readonly only: boolean;
  /** The stream would store (or, trace-only, would have stored) the message under `subject`. */
  stored(subject: string, noInterest: boolean): void;
  /** The stream refused the message. */
  failed(error: string): void;
}

/** One traced publish. */
export class MsgTrace implements TracedPublish, DeliveryTrace {
  /** `Nats-Trace-Only`: followed, not delivered to any client. */
  readonly only: boolean;
  readonly #tracer: MsgTracer;
  readonly #account: TracedAccount;
  readonly #dest: string | undefined;
  readonly #request: TraceRequest;
  readonly #size: number;
  readonly #ingress: TraceEvent;
  readonly #events: TraceEvent[];
  readonly #exports: StreamExport[] = [];

  constructor(
    tracer: MsgTracer,
    publisher: TracedPublisher,
    subject: string,
    request: TraceRequest,
    dest: string | undefined,
    size: number,
  ) {
    this.#tracer = tracer;
    this.#account = publisher.account;
    this.#dest = dest;
    this.#request = request;
    this.#size = size;
    this.only = request.only;
    this.#ingress = event('in', {
      kind: CLIENT_KIND,
      cid: publisher.cid,
      name: publisher.name || undefined,
      acc: publisher.account.name,
      subj: subject,
    });
    this.#events = [this.#ingress];
  }

  run(route: (headers: Uint8Array) => void): void {
    const previous = follow(this);
    try {
      route(this.#request.headers);
    } finally {
      follow(previous);
    }
    this.#send();
  }

  /** The publish was refused before routing (a permission): the ingress event says why. */
  refused(error: string): void {
    this.#ingress.error = error;
  }

  /** The account's mappings sent the publish on to `subject`. */
  mapped(subject: string): void {
    if (subject !== this.#ingress.subj) this.#events.push(event('sm', { to: subject }));
  }

  /**
   * Routes the message to `sub`, refused for `refusal` or not, and records it: client
   * subscriptions get an egress event and, trace-only, count as reached without delivery;
   * internal ones (JetStream, imports) get it in either case, as nats-server's internal callbacks.
   */
  deliver(sub: Subscription, refusal: DeliveryRefusal | undefined, send: () => boolean): boolean {
    const crossing = this.#exports.at(-1);
    if (crossing) {
      this.#events.push(event('se', { acc: crossing.account, to: crossing.to }));
      if (!crossing.allowed) {
        if (this.only) return true;
        return refusal === undefined && untraced(send);
      }
    }
    const client = clientOf(sub.subscriber);
    if (refusal !== undefined) {
      if (client) this.#egress(sub, client, crossing, REFUSALS[refusal]);
      return false;
    }
    if (!client) return send();
    this.#egress(sub, client, crossing);
    return this.only || send();
  }

  /**
   * A service import carries the message into `account` (`from` here, `to` there). Without the
   * export's allow_trace, tracing stops there: trace-only, the import goes no further; else it
   * forwards untraced, its trace headers disabled. `forward` gets the headers to send.
   */
  serviceImport(
    account: string,
    from: string,
    to: string,
    allowed: boolean,
    forward: (disableTraceHeaders: boolean) => void,
  ): void {
    this.#events.push(event('si', { acc: account, from, to }));
    if (allowed) forward(false);
    else if (!this.only) untraced(() => forward(true));
  }

  /**
   * A stream import takes the message into `account` under `to`; every subscription it reaches
   * there shows as a stream export, and (with the import's allow_trace) an egress.
   */
  streamExport(
    account: string,
    to: string,
    subject: string,
    allowed: boolean,
    forward: () => boolean,
  ): boolean {
    this.#exports.push({ account, to, subject, allowed });
    try {
      return forward();
    } finally {
      this.#exports.pop();
    }
  }

  /** A stream takes the message: its `js` event, placed now, filled in by the stream. */
  jetStream(stream: string): JetStreamTrace {
    const js = event('js', { stream });
    this.#events.push(js);
    return {
      only: this.only,
      stored(subject, noInterest) {
        js.subject = subject;
        js.nointerest = noInterest || undefined;
        js.ts = rfc3339(Date.now());
      },
      failed(error) {
        js.error = error;
      },
    };
  }

  #egress(
    sub: Subscription,
    client: TracedClient,
    crossing: StreamExport | undefined,
    error?: string,
  ): void {
    const account = client.account.name;
    this.#events.push(
      event('eg', {
        kind: CLIENT_KIND,
        cid: client.cid,
        name: client.name || undefined,
        acc: account === this.#ingress.acc ? undefined : account,
        sub: crossing?.subject ?? sub.subject,
        queue: sub.queue,
        error,
      }),
    );
  }

  #send(): void {
    // An invalid destination only kept a trace-only message from being delivered.
    if (this.#dest === undefined) return;
    const body = {
      request: { header: this.#request.header, msgsize: this.#size || undefined },
      events: this.#events,
    };
    this.#tracer.send(this.#account, this.#dest, body, this.#request.acceptEncoding);
  }
}

function event(type: string, fields: Record<string, unknown>): TraceEvent {
  return { type, ts: rfc3339(Date.now()), ...fields };
}

/** The subscriber as a client connection, which egress events are about; undefined for an internal one. */
function clientOf(subscriber: Subscriber): TracedClient | undefined {
  return subscriber.account && (subscriber as TracedClient);
}
