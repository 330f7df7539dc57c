/**
 * Feeds a stream from a stream reached through a JetStream API prefix (`external`): another
 * account's JetStream, whose `$JS.API.CONSUMER.>` (or `CONSUMER.CREATE.<stream>.>`), delivery
 * subjects and `$JS.FC.>` this account imports, or this server's JetStream under its domain's
 * prefix `$JS.<domain>.API`. Like nats-server (stream.go setupMirrorConsumer and
 * setupSourceConsumer at v2.11.0) it never reads the origin directly: it asks
 * `<api>.CONSUMER.CREATE.<stream>` for an ephemeral push consumer (flow control, 1 s heartbeats,
 * no acks) that delivers to `<deliver>.M.<id>` (`.S.` for a source; `$JS.M.<id>` without a
 * deliver prefix), and stores what arrives there. Each message's ack subject carries the
 * origin's sequence, time and pending count. A consumer delivery sequence out of step (a
 * heartbeat naming another last delivery, too), or 10 s without a message or heartbeat, makes
 * it ask for a new consumer from where the stream left off; so does a failed or unanswered
 * request, after a growing pause.
 */
import { createHash } from 'node:crypto';
import { type AckSubjectInfo, parseAckSubject, type StreamSource } from '@slipstream/jsapi';
import { nuid } from '@slipstream/protocol';
import type { InternalClient, InternalMessage } from '../../internal-client.js';
import type { Logger } from '../../logger.js';
import type { Subscription } from '../../subscription.js';
import { headerValue } from '../shared/header-block.js';
import type { SubjectTransform } from '../shared/subject-transform.js';
import { nowNanos } from '../shared/wire-time.js';
import {
  copyInto,
  type Feed,
  type FeedTarget,
  originFilterInfo,
  originTransform,
  resumeSeq,
} from './stream-origin.js';

/** What a feed from an external origin needs of the JetStream its stream is in. */
export interface ExternalFeedHost {
  readonly client: InternalClient;
  readonly logger: Logger;
}

const NANOS_PER_MS = 1_000_000;
/** sourceHealthHB: the consumer's idle heartbeat. */
const HEARTBEAT_MS = 1_000;
/** sourceHealthCheckInterval: silence this long means stalled; also the consumer's inactivity. */
const STALLED_MS = 10_000;
/** srcConsumerWaitTime: how long a consumer create may go unanswered. */
const CREATE_WAIT_MS = 30_000;
/** sourceConsumerRetryThreshold, plus calculateRetryBackoff's 10 s a failure, at most 2 min. */
const RETRY_MS = 2_000;
const BACKOFF_MS = 10_000;
const MAX_BACKOFF_MS = 120_000;
/** scheduleSetupMirrorConsumerRetry's jitter, at its least: after a link is up, before asking. */
const LINK_UP_DELAY_MS = 100;
/** The consumer's ack_wait: never reached, it acks nothing (nats-server's 22 h). */
const ACK_WAIT_NANOS = 22 * 3600 * 1_000 * NANOS_PER_MS;

interface ApiErrorBody {
  code: number;
  err_code?: number;
  description?: string;
}

export class ExternalFeed implements Feed {
  readonly #target: FeedTarget;
  readonly #source: StreamSource;
  readonly #kind: 'mirror' | 'source';
  readonly #host: ExternalFeedHost;
  readonly #api: string;
  /** The origin as `Nats-Stream-Source` names it: `<name>:<hash of the API prefix>`. */
  readonly #originName: string;
  readonly #transform: SubjectTransform | undefined;
  /** The current consumer's name; deliveries of any other are ignored. */
  #consumer: string | undefined;
  #delivery: Subscription | undefined;
  #reply: Subscription | undefined;
  #timer: NodeJS.Timeout | undefined;
  #stallCheck: NodeJS.Timeout | undefined;
  /** The last origin and consumer sequences taken from the current consumer. */
  #streamSeq = 0;
  #consumerSeq = 0;
  #lag = 0;
  /** When a message or heartbeat last arrived (ns since the epoch; 0: never). */
  #lastHeard = 0n;
  #failures = 0;
  /** When the last consumer was asked for (ms since the epoch). */
  #requested = 0;
  #error: ApiErrorBody | undefined;
  #stopped = false;

  constructor(
    target: FeedTarget,
    source: StreamSource,
    kind: 'mirror' | 'source',
    host: ExternalFeedHost,
  ) {
    this.#target = target;
    this.#source = source;
    this.#kind = kind;
    this.#host = host;
    this.#api = source.external!.api;
    this.#originName = `${source.name}:${apiHash(this.#api)}`;
    this.#transform = originTransform(source);
  }

  get name(): string {
    return this.#source.name;
  }

  start(): void {
    this.#setup();
  }

  stop(): void {
    this.#stopped = true;
    this.#cancel();
  }

  /**
   * A leaf connection of the account came up (nats-server's retryDisconnectedSyncConsumers, from
   * 2.11.5): with no consumer delivering (a request unanswered, as one sent while the link was
   * down is, or a retry waiting out its backoff), ask again now, within the once-per-RETRY_MS
   * limit and a moment later, for the other side's interest to arrive first.
   */
  linkUp(): void {
    if (this.#stopped || this.#delivery) return;
    this.#failures = 0;
    this.#cancel();
    const wait = Math.max(0, this.#requested + RETRY_MS - Date.now()) + LINK_UP_DELAY_MS;
    this.#timer = setTimeout(() => this.#setup(), wait);
    this.#timer.unref();
  }

  /** As nats-server's StreamSourceInfo: the external prefixes, the last setup error, the filters. */
  info() {
    const { api, deliver } = this.#source.external!;
    return {
      name: this.#source.name,
      external: { api, deliver: deliver ?? '' },
      lag: this.#lag,
      active: this.#lastHeard === 0n ? -1 : Number(nowNanos() - this.#lastHeard),
      ...(this.#error ? { error: this.#error } : {}),
      ...originFilterInfo(this.#source),
    };
  }

  /** Asks the origin's JetStream for a consumer starting after what the stream holds. */
  #setup(): void {
    this.#cancel();
    if (this.#stopped) return;
    // The last error shows until the next request, as nats-server resets it (stream.go:2878).
    this.#error = undefined;
    const client = this.#host.client;
    const deliverSubject = this.#deliverSubject();
    const config = { ...this.#startPosition(), ...this.#consumerConfig(deliverSubject) };
    // With one filter the consumer is named and the filter is in the subject (v2.11.0
    // stream.go:2869-2871 and :3211-3221), which an export of CONSUMER.CREATE.<stream>.> allows.
    const filter = this.#source.filter_subject || this.#singleTransformFilter();
    const name = filter ? `${this.#kind === 'mirror' ? 'mirror' : 'src'}-${nuid.next()}` : '';
    const request = {
      stream_name: this.#source.name,
      config: filter
        ? { ...config, name, filter_subject: filter, filter_subjects: undefined }
        : config,
    };
    const subject = filter
      ? `${this.#api}.CONSUMER.CREATE.${this.#source.name}.${name}.${filter}`
      : `${this.#api}.CONSUMER.CREATE.${this.#source.name}`;
    const inbox = `$JS.FEED.${nuid.next()}`;
    this.#requested = Date.now();
    this.#reply = client.subscribe(inbox, (answer) => {
      this.#unsubscribe('reply');
      clearTimeout(this.#timer);
      this.#created(answer, deliverSubject);
    });
    this.#timer = setTimeout(() => this.#retry(undefined), CREATE_WAIT_MS);
    this.#timer.unref();
    client.publish(subject, Buffer.from(JSON.stringify(request)), { reply: inbox });
  }

  #deliverSubject(): string {
    const marker = this.#kind === 'mirror' ? 'M' : 'S';
    const prefix = this.#source.external!.deliver || '$JS';
    return `${prefix}.${marker}.${nuid.next()}`.replaceAll('..', '.');
  }

  /** A push consumer that acks nothing, with flow control and heartbeats (stream.go:2784-2797). */
  #consumerConfig(deliverSubject: string) {
    const filters = (this.#source.subject_transforms ?? []).map((t) => t.src);
    return {
      deliver_subject: deliverSubject,
      ack_policy: 'none',
      ack_wait: ACK_WAIT_NANOS,
      max_deliver: 1,
      idle_heartbeat: HEARTBEAT_MS * NANOS_PER_MS,
      flow_control: true,
      direct: true,
      inactive_threshold: STALLED_MS * NANOS_PER_MS,
      ...(filters.length > 0 ? { filter_subjects: filters } : {}),
    };
  }

  /** A source's single subject transform also filters through the subject (stream.go:3214). */
  #singleTransformFilter(): string | undefined {
    const transforms = this.#source.subject_transforms ?? [];
    return this.#kind === 'source' && transforms.length === 1 ? transforms[0]!.src : undefined;
  }

  /**
   * Where the consumer starts: after what the stream holds from the origin, else the source's
   * opt_start_seq or opt_start_time, else the origin's first message.
   */
  #startPosition() {
    const resumed = resumeSeq(this.#target, this.#kind, this.#originName);
    if (resumed) return { deliver_policy: 'by_start_sequence', opt_start_seq: resumed };
    if (this.#source.opt_start_seq) {
      return { deliver_policy: 'by_start_sequence', opt_start_seq: this.#source.opt_start_seq };
    }
    if (this.#source.opt_start_time) {
      return { deliver_policy: 'by_start_time', opt_start_time: this.#source.opt_start_time };
    }
    return { deliver_policy: 'all' };
  }

  #created(answer: InternalMessage, deliverSubject: string): void {
    let body: { name?: string; delivered?: { stream_seq?: number }; error?: ApiErrorBody };
    try {
      body = JSON.parse(Buffer.from(answer.payload).toString());
    } catch {
      body = { error: { code: 400, err_code: 10025, description: 'invalid JSON' } };
    }
    if (body.error || !body.name) {
      this.#host.logger.warn(
        `JetStream error response for create ${this.#kind} consumer of '${this.#target.name}': ${body.error?.description ?? 'no consumer'}`,
      );
      this.#retry(body.error);
      return;
    }
    this.#failures = 0;
    this.#consumer = body.name;
    this.#streamSeq = body.delivered?.stream_seq ?? 0;
    this.#consumerSeq = 0;
    this.#lastHeard = nowNanos();
    this.#delivery = this.#host.client.subscribe(deliverSubject, (m) => this.#received(m));
    this.#stallCheck = setInterval(() => {
      if (nowNanos() - this.#lastHeard > BigInt(STALLED_MS * NANOS_PER_MS)) this.#restart();
    }, STALLED_MS);
    this.#stallCheck.unref();
  }

  #received(m: InternalMessage): void {
    const headers = m.headers;
    if (headers && isStatus(headers, 100)) {
      this.#lastHeard = nowNanos();
      this.#control(m.reply, headers);
      return;
    }
    const delivery = m.reply === undefined ? undefined : parseAckSubject(m.reply);
    if (!delivery || delivery.consumer !== this.#consumer || delivery.delivered > 1) return;
    this.#lastHeard = nowNanos();
    if (!this.#inStep(delivery)) return;
    this.#lag = Math.max(0, delivery.pending - 1);
    copyInto(this.#target, this.#kind, this.#originName, this.#transform, {
      subject: m.subject,
      seq: delivery.streamSequence,
      time: delivery.timestampNanos,
      // Views into the sender's buffer: copied, the store may keep them.
      headers: headers && Buffer.from(headers),
      payload: Buffer.from(m.payload),
    });
  }

  /**
   * A flow control request is answered on its reply; a heartbeat naming another last delivery
   * than ours means messages were lost, so the consumer is replaced; one saying the consumer is
   * stalled on us is answered on the subject it gives (stream.go:2492-2507).
   */
  #control(reply: string | undefined, headers: Uint8Array): void {
    const client = this.#host.client;
    if (reply) {
      client.publish(reply, EMPTY);
      return;
    }
    const last = Number(headerValue(headers, 'Nats-Last-Consumer') ?? 0);
    if (last > 0 && last !== this.#consumerSeq) {
      this.#restart();
      return;
    }
    const stalled = headerValue(headers, 'Nats-Consumer-Stalled');
    if (stalled) client.publish(stalled, EMPTY);
  }

  /**
   * Whether the delivery follows the last one taken (stream.go:2519-2543 for a mirror,
   * :3492-3506 for a source): a mirror takes the next origin sequence, or a later one when no
   * delivery was missed (the origin removed the messages between), and ignores an older one; a
   * source takes the next delivery and ignores an older one. Anything else missed messages: a
   * new consumer resumes after the last taken.
   */
  #inStep(d: AckSubjectInfo): boolean {
    const nextDelivery = d.consumerSequence === this.#consumerSeq + 1;
    if (this.#kind === 'mirror') {
      if (d.streamSequence <= this.#streamSeq) return false;
      if (d.streamSequence !== this.#streamSeq + 1 && !nextDelivery) return this.#restart();
    } else {
      if (d.consumerSequence <= this.#consumerSeq) return false;
      if (!nextDelivery) return this.#restart();
    }
    this.#consumerSeq = d.consumerSequence;
    this.#streamSeq = d.streamSequence;
    return true;
  }

  /** A new consumer, at most one request per RETRY_MS (stream.go:2763); false, for #inStep. */
  #restart(): false {
    this.#cancel();
    const wait = this.#requested + RETRY_MS - Date.now();
    if (wait <= 0) this.#setup();
    else {
      this.#timer = setTimeout(() => this.#setup(), wait);
      this.#timer.unref();
    }
    return false;
  }

  #retry(error: ApiErrorBody | undefined): void {
    this.#cancel();
    if (this.#stopped) return;
    this.#error = error;
    this.#failures++;
    const backoff = Math.min(BACKOFF_MS * this.#failures, MAX_BACKOFF_MS);
    this.#timer = setTimeout(() => this.#setup(), RETRY_MS + backoff);
    this.#timer.unref();
  }

  /** Stops listening to the current consumer (which its inactive_threshold then removes). */
  #cancel(): void {
    clearTimeout(this.#timer);
    clearInterval(this.#stallCheck);
    this.#unsubscribe('reply');
    this.#unsubscribe('delivery');
    this.#consumer = undefined;
  }

  #unsubscribe(which: 'reply' | 'delivery'): void {
    const sub = which === 'reply' ? this.#reply : this.#delivery;
    if (sub) this.#host.client.unsubscribe(sub);
    if (which === 'reply') this.#reply = undefined;
    else this.#delivery = undefined;
  }
}

const EMPTY = new Uint8Array(0);

function isStatus(headers: Uint8Array, code: number): boolean {
  const status = `NATS/1.0 ${code}`;
  const block = Buffer.from(headers.buffer, headers.byteOffset, headers.length);
  return block.toString('latin1', 0, status.length) === status;
}

/** nats-server's getHash: 8 characters of base 62 over the SHA-256 of the name. */
function apiHash(name: string): string {
  const digits = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
  const sha = createHash('sha256').update(name).digest();
  return Array.from(sha.subarray(0, 8), (byte) => digits[byte % 62]).join('');
}
