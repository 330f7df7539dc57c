import { nuid } from '@slipstream/protocol';
import { goJson, rfc3339 } from '../monitoring/format.js';
import type { Subscriber } from '../subscription.js';
import { clientInfo } from './client-info.js';
import { type TraceHeader, traceSampled } from './trace-sampling.js';

/** The event type of a latency report (nats-server's ServiceLatencyType). */
const SERVICE_LATENCY_TYPE = 'io.nats.server.metric.v1.service_latency';

/** Why a tracked request got no answer, with nats-server's status and description. */
export const LATENCY_FAILURES = {
  badRequest: [400, 'Bad Request'],
  requestTimeout: [408, 'Request Timeout'],
  serviceUnavailable: [503, 'Service Unavailable'],
  serviceTimeout: [504, 'Service Timeout'],
} as const satisfies Record<string, readonly [number, string]>;
export type LatencyFailure = keyof typeof LATENCY_FAILURES;

/** Milliseconds since the epoch, with the fraction performance.now gives. */
const now = () => performance.timeOrigin + performance.now();
const nanos = (ms: number) => Math.max(0, Math.round(ms * 1e6));

/** Where a service's latency reports go: into the exporting account (an Account). */
interface ReportingAccount {
  publishInternal(subject: string, payload: Uint8Array): void;
}

/** One sampled request of a tracked service: who asked, and when the request went through. */
export interface TrackedRequest {
  readonly latency: ServiceLatency;
  readonly requestor: Subscriber;
  readonly account: string;
  readonly share: boolean;
  readonly at: number;
  /** The trace headers that had it measured, which its report repeats. */
  readonly header: TraceHeader | undefined;
  /** Set once its report went out: one report per request. */
  reported: boolean;
}

/**
 * Latency tracking of one service export (nats-server's export `latency`): for each sampled
 * request the exporting account gets one `service_latency` report on `subject`, when the
 * first response goes back (status 200, with the responder's details and the service, system
 * and total times in nanoseconds), or when the request fails: no reply subject (400), the
 * requester stopped listening (408), no responder (503), no response within the threshold (504).
 */
export class ServiceLatency {
  constructor(
    private readonly exporter: ReportingAccount,
    readonly subject: string,
    /** Percent of requests measured, 1 to 100; 0: those whose trace headers ask only. */
    private readonly sampling: number,
    private readonly serverId: string,
  ) {}

  /**
   * A request to measure, or undefined when this one is not sampled: nats-server's odds
   * (`sampling` in 100), else its trace headers decide.
   */
  track(
    requestor: Subscriber,
    account: string,
    share: boolean,
    headers: Uint8Array | undefined,
  ): TrackedRequest | undefined {
    const picked =
      this.sampling >= 100 ||
      (this.sampling > 0 && Math.floor(Math.random() * 100) <= this.sampling);
    const header = picked ? undefined : traceSampled(headers);
    if (!picked && !header) return undefined;
    return { latency: this, requestor, account, share, at: now(), header, reported: false };
  }

  /** The first response to `request` went back from `responder`. */
  answered(request: TrackedRequest, responder: Subscriber, responderAccount: string): void {
    if (request.reported) return;
    const answeredAt = now();
    const requestor = this.#requestor(request);
    const responderInfo = clientInfo(responder, responderAccount, { serverId: this.serverId });
    const requestRtt = (requestor.rtt as number | undefined) ?? 0;
    const responseRtt = (responderInfo.rtt as number | undefined) ?? 0;
    const serviceRtt = nanos(answeredAt - request.at);
    const system = responseRtt > 0 ? nanos(now() - answeredAt) : 0;
    this.#report(request, {
      status: 200,
      requestor,
      responder: responderInfo,
      ...(request.header ? { header: request.header } : {}),
      start: rfc3339(request.at - requestRtt / 1e6),
      service: Math.max(0, serviceRtt - responseRtt),
      system,
      total: requestRtt + serviceRtt + system,
    });
  }

  /** `request` ended without a response. */
  failed(request: TrackedRequest, why: LatencyFailure): void {
    if (request.reported) return;
    const [status, description] = LATENCY_FAILURES[why];
    const requestor = this.#requestor(request);
    const requestRtt = (requestor.rtt as number | undefined) ?? 0;
    this.#report(request, {
      status,
      description,
      requestor,
      ...(request.header ? { header: request.header } : {}),
      start: rfc3339(request.at - requestRtt / 1e6),
      service: 0,
      system: 0,
      total: 0,
    });
  }

  #requestor(request: TrackedRequest): Record<string, unknown> {
    const detailed = request.share ? { serverId: this.serverId } : undefined;
    return clientInfo(request.requestor, request.account, detailed);
  }

  #report(request: TrackedRequest, measured: Record<string, unknown>): void {
    request.reported = true;
    const report = {
      type: SERVICE_LATENCY_TYPE,
      id: nuid.next(),
      timestamp: rfc3339(Date.now()),
      ...measured,
    };
    this.exporter.publishInternal(this.subject, Buffer.from(goJson(report, false)));
  }
}
