import { hasWildcard, isSubsetMatch } from '@slipstream/protocol';
import { withHeaders, withoutHeader } from '../jetstream/shared/header-block.js';
import { type SubjectTransform, subjectTransform } from '../jetstream/shared/subject-transform.js';
import { activeTrace } from '../msg-trace.js';
import { withTraceHeadersDisabled } from '../msg-trace-request.js';
import { Router } from '../router.js';
import type { Subscription } from '../subscription.js';
import { type ClientInfoServer, clientInfo } from './client-info.js';
import { Bridge, forward, type ResponsePolicy } from './forward.js';
import type { ServiceLatency } from './service-latency.js';
import { ServiceResponses } from './service-responses.js';
import { numberWildcards, type SubjectMappings } from './subject-mappings.js';

/** The account of every client whose user belongs to no configured account (nats-server's). */
export const GLOBAL_ACCOUNT = '$G';

/** The header a service import adds to each request: which account asked (nats-server's). */
const REQUEST_INFO_HEADER = 'Nats-Request-Info';

export interface Export {
  readonly subject: string;
  /** The accounts allowed to import it; undefined = any. */
  readonly accounts: ReadonlySet<string> | undefined;
  /** 1-based token of an imported subject that must be the importer's name; 0: none. */
  readonly tokenPosition: number;
}

export interface ServiceExport extends Export {
  readonly responses: ResponsePolicy;
  /** Its latency tracking, when configured. */
  readonly latency: ServiceLatency | undefined;
}

/**
 * One account: its own subject space (router), what it exports to other accounts, and the
 * bridges its imports place in the exporters' subject spaces.
 */
/** A client connection as its account counts it. */
export interface AccountMember {
  readonly inMsgs: number;
  readonly inBytes: number;
  readonly outMsgs: number;
  readonly outBytes: number;
}

export interface DataStats {
  msgs: number;
  bytes: number;
}

/** An account's traffic as nats-server's account stats report it: received from clients, sent to them. */
export interface AccountTraffic {
  received: DataStats;
  sent: DataStats;
}

/** Adds (`sign` 1) or takes away (-1) `member`'s counters to `traffic`. */
function addTraffic(traffic: AccountTraffic, member: AccountMember, sign: 1 | -1): void {
  traffic.received.msgs += sign * member.inMsgs;
  traffic.received.bytes += sign * member.inBytes;
  traffic.sent.msgs += sign * member.outMsgs;
  traffic.sent.bytes += sign * member.outBytes;
}

export class Account {
  readonly router = new Router();
  /** Reply subjects of requests that reached this account through a service import. */
  readonly responses: ServiceResponses = new ServiceResponses(this);
  readonly #streamExports: Export[] = [];
  readonly #serviceExports: ServiceExport[] = [];
  /** The imports set up so far, for the check that a new one does not close a loop. */
  readonly streamImports: {
    readonly exporter: Account;
    readonly from: string;
    readonly to: string;
  }[] = [];
  readonly serviceImports: {
    readonly exporter: Account;
    readonly from: string;
    readonly to: string;
  }[] = [];
  /** Client connections in the account now. */
  readonly #members = new Set<AccountMember>();
  /**
   * The account's traffic but for its members' counters as they stand: what members that left
   * carried while here, less what present members had already carried when they joined (a
   * connection's counters start in `$G` and go on in the account it authenticates for).
   * nats-server's account counters outlive connections.
   */
  readonly #settled: AccountTraffic = {
    received: { msgs: 0, bytes: 0 },
    sent: { msgs: 0, bytes: 0 },
  };

  /** Its stream exports as configured (for /accountz). */
  get streamExports(): readonly Export[] {
    return this.#streamExports;
  }

  /** Its service exports as configured (for /accountz). */
  get serviceExports(): readonly ServiceExport[] {
    return this.#serviceExports;
  }
  /**
   * Where the traces a sampled W3C `traceparent` asks for go, and the percentage of such
   * messages traced (nats-server 2.11's account `msg_trace`); none when undefined.
   */
  msgTrace: { readonly dest: string; readonly sampling: number } | undefined;
  /**
   * The subjects of the service exports whose importers' message traces go on in here
   * (nats-server 2.11's export `allow_trace`); other imports stop a trace at the `si` event.
   */
  readonly tracedServiceExports = new Set<string>();
  /** The publisher of the server's own messages here; it receives nothing. */
  readonly #internal = new Bridge(() => false);
  /** The subscriptions of this account's import bridges, with the router each is in. */
  readonly #bridges: { router: Router; subscription: Subscription }[] = [];

  constructor(
    readonly name: string,
    /** Most clients at once; 0: no limit. Operator mode changes it with the account's claims. */
    public maxConnections = 0,
    /** Most subscriptions per client; 0: no limit. Changed with the claims too. */
    public maxSubscriptions = 0,
    /** Where publishes to its subjects go instead (nats-server's `mappings`); none if undefined. */
    readonly mappings?: SubjectMappings,
  ) {}

  /** The subject a publish on `subject` is routed to here, after the account's mappings. */
  mapped(subject: string): string {
    return this.mappings ? this.mappings.map(subject) : subject;
  }

  /** How many client connections are in the account now. */
  get connections(): number {
    return this.#members.size;
  }

  join(member: AccountMember): void {
    this.#members.add(member);
    addTraffic(this.#settled, member, -1);
  }

  /** `member` closed or moved to another account; what it carried while here stays counted. */
  leave(member: AccountMember): void {
    if (this.#members.delete(member)) addTraffic(this.#settled, member, 1);
  }

  /** What the account's connections, present and past, sent and received while in it. */
  traffic(): AccountTraffic {
    const { received, sent } = this.#settled;
    const total = { received: { ...received }, sent: { ...sent } };
    for (const member of this.#members) addTraffic(total, member, 1);
    return total;
  }

  /** Whether one more client may join (nats-server's MaxTotalConnectionsReached). */
  get full(): boolean {
    return this.maxConnections > 0 && this.connections >= this.maxConnections;
  }

  exportStream(
    subject: string,
    accounts: ReadonlySet<string> | undefined,
    tokenPosition = 0,
  ): void {
    this.#streamExports.push({ subject, accounts, tokenPosition });
  }

  exportService(
    subject: string,
    accounts: ReadonlySet<string> | undefined,
    responses: ResponsePolicy,
    latency?: ServiceLatency,
    tokenPosition = 0,
  ): void {
    this.#serviceExports.push({ subject, accounts, responses, latency, tokenPosition });
  }

  /** True when some service export covers `subject` (a latency subject must not be one). */
  exportsServiceMatching(subject: string): boolean {
    return this.#serviceExports.some((e) => isSubsetMatch(subject, e.subject));
  }

  /** Publishes a message of the server's own here, such as a latency report. */
  publishInternal(subject: string, payload: Uint8Array): void {
    this.router.route(this.#internal, subject, undefined, undefined, payload);
  }

  /** True when `importer` may import the stream `subject` (a subset of an export's subject). */
  exportsStreamTo(subject: string, importer: string): boolean {
    return exportFor(this.#streamExports, subject, importer) !== undefined;
  }

  /** True when some stream export covers `subject`, whoever it is open to. */
  exportsStreamMatching(subject: string): boolean {
    return this.#streamExports.some((e) => isSubsetMatch(subject, e.subject));
  }

  /** The service export `importer` may send `subject` to, if any. */
  serviceExportTo(subject: string, importer: string): ServiceExport | undefined {
    return exportFor(this.#serviceExports, subject, importer);
  }

  /**
   * Delivers what `exporter` publishes on `subject` here, under `to` (which repeats the
   * subject's wildcards): a bridge subscribed in the exporter's subject space.
   */
  importStream(exporter: Account, subject: string, to: string, allowTrace = false): void {
    this.streamImports.push({ exporter, from: subject, to });
    const map = subject === to ? undefined : importTransform(subject, to);
    const bridge: Bridge = new Bridge((message, matched) => {
      const imported = map?.(matched) ?? matched;
      const carry = () =>
        forward(
          bridge,
          exporter,
          this,
          {
            subject: imported,
            reply: message.reply,
            headers: message.headers,
            payload: message.payload,
            // A JetStream delivery keeps showing its stored subject.
            shownSubject: message.subject === matched ? undefined : message.subject,
          },
          undefined,
        );
      const trace = activeTrace();
      return trace ? trace.streamExport(this.name, imported, subject, allowTrace, carry) : carry();
    });
    this.#place(exporter.router, bridge.subscription(subject));
  }

  /**
   * Sends requests published here on `local` to `exporter`'s `subject`, each marked with the
   * requesting account and with its reply mapped so the answer comes back here. With `share`,
   * the mark describes the requesting client in full, for the exporter and its `latency`.
   */
  importService(
    exporter: Account,
    subject: string,
    local: string,
    responses: ResponsePolicy,
    latency?: ServiceLatency,
    share?: ClientInfoServer,
  ): void {
    this.serviceImports.push({ exporter, from: local, to: subject });
    const map =
      !hasWildcard(local) || local === subject ? undefined : importTransform(local, subject);
    const fixed = hasWildcard(local) ? undefined : subject;
    const exported = exporter.serviceExportTo(subject, this.name)?.subject ?? subject;
    const traced = exporter.tracedServiceExports.has(exported);
    const bridge: Bridge = new Bridge((message, matched, publisher) => {
      const info = JSON.stringify(clientInfo(publisher, this.name, share));
      const tracked = latency?.track(publisher, this.name, share !== undefined, message.headers);
      if (tracked && message.reply === undefined) latency!.failed(tracked, 'badRequest');
      // The exporter's mappings apply to what enters it, as to its own publishes.
      const destination = exporter.mapped(fixed ?? map?.(matched) ?? matched);
      const carry = (disableTrace: boolean) => {
        const headers = disableTrace ? withTraceHeadersDisabled(message.headers) : message.headers;
        forward(
          bridge,
          this,
          exporter,
          {
            subject: destination,
            reply: message.reply,
            headers: withHeaders(withoutHeader(headers, REQUEST_INFO_HEADER), [
              [REQUEST_INFO_HEADER, info],
            ]),
            payload: message.payload,
          },
          responses,
          tracked,
        );
      };
      const trace = activeTrace();
      if (trace) trace.serviceImport(exporter.name, matched, destination, traced, carry);
      else carry(false);
      // Taken even when the exporter has no responder, as nats-server counts the import itself
      // as a receiver (so no no_responders answer).
      return true;
    });
    this.#place(this.router, bridge.subscription(local));
  }

  #place(router: Router, subscription: Subscription): void {
    router.subscribe(subscription);
    this.#bridges.push({ router, subscription });
  }

  /**
   * Takes down every export and import, for new account claims to replace them (operator mode,
   * as nats-server's updateAccountClaims resets them).
   */
  unshare(): void {
    this.#streamExports.length = 0;
    this.#serviceExports.length = 0;
    this.streamImports.length = 0;
    this.serviceImports.length = 0;
    for (const { router, subscription } of this.#bridges.splice(0))
      router.unsubscribe(subscription);
  }

  close(): void {
    this.responses.stop();
  }
}

/**
 * The mapping of an import's subject: a `*` of the destination takes the source's `*` in the
 * same order (nats-server turns them into `$1`, `$2`, … the same way).
 */
function importTransform(source: string, destination: string): SubjectTransform {
  return subjectTransform(source, numberWildcards(destination));
}

/** An exact export of `subject`, else the first whose subject covers it, open to `importer`. */
function exportFor<E extends Export>(
  exports: readonly E[],
  subject: string,
  importer: string,
): E | undefined {
  const allowed = (e: E) =>
    e.tokenPosition > 0
      ? subject.split('.')[e.tokenPosition - 1] === importer
      : e.accounts === undefined || e.accounts.has(importer);
  const exact = exports.find((e) => e.subject === subject);
  if (exact) return allowed(exact) ? exact : undefined;
  return exports.find((e) => isSubsetMatch(subject, e.subject) && allowed(e));
}
