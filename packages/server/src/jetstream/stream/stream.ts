/**
 * Room `jetstream/stream/` (this is its main file): one stream and what it alone uses: its config
 * (`stream-config.ts`), the publish rules, its mirror and sources (`stream-origin.ts`,
 * `stream-external-origin.ts`), direct and message gets, the duplicate window, PubAcks, its
 * files on disk and their damage checks. It knows its consumers only as a `StreamConsumerSet`.
 *
 * One stream: its config, its store, the internal subscriptions that capture what is published
 * on its subjects, and the publish rules of nats-server's processJetStreamMsg (subject
 * transform, sealed, expected headers, per-message TTLs, duplicates, rollups, sizes, limits).
 * A PubAck leaves only once the store says the message is durable.
 */
import {
  ApiError,
  type JsErrorEntry,
  jsErrors,
  type StreamConfig,
  type StreamSource,
  type StreamState,
} from '@slipstream/jsapi';
import type { InternalClient, InternalMessage } from '../../internal-client.js';
import type { Logger } from '../../logger.js';
import { activeTrace, type JetStreamTrace } from '../../msg-trace.js';
import { withTraceHeadersDisabled } from '../../msg-trace-request.js';
import type { Subscription } from '../../subscription.js';
import type { Advisories } from '../advisories.js';
import { formatGoDuration } from '../shared/go-duration.js';
import { headerValue, withHeaders } from '../shared/header-block.js';
import { type SubjectTransform, subjectTransform } from '../shared/subject-transform.js';
import { wireTime } from '../shared/wire-time.js';
import {
  type MessageStore,
  type PurgeOptions,
  type StoredMessage,
  StoreError,
} from '../store/message-store.js';
import {
  InvalidTtl,
  MARKER_REASON_HEADER,
  messageTtl,
  storedTtl,
  TTL_HEADER,
} from '../store/message-ttl.js';
import type { LostMessages } from '../store/sqlite-salvage.js';
import {
  AtomicBatches,
  type BatchBudget,
  pubAckRefusal,
  withoutBatchHeaders,
} from './atomic-batch.js';
import type { StreamConsumerSet } from './consumer-set.js';
import { countMessage, refuseIncrement, totalAckFields } from './counter.js';
import { DuplicateWindow } from './dedupe.js';
import { directGetReplies } from './direct-get.js';
import { admitSchedule, finishedSchedule, MessageSchedules } from './message-schedules.js';
import { PubAcks } from './pub-acks.js';
import { storeLimitsOf } from './stream-config.js';
import { ExternalFeed } from './stream-external-origin.js';
import { type Feed, type FeedTarget, OriginFeed, type StreamWatcher } from './stream-origin.js';

/** What a stream needs from the JetStream that holds it. */
export interface StreamHost {
  readonly client: InternalClient;
  /** JetStream's advisories, which the stream's consumers publish through. */
  readonly advisories: Advisories;
  readonly logger: Logger;
  readonly domain: string | undefined;
  /** The account's limit of consumers per stream; -1 for none. */
  readonly maxConsumers: number;
  /** The server's max payload, which a counter's stored total may not exceed either. */
  readonly maxPayload?: number;
  /**
   * The error a message of about `bytes` is refused with when the server's memory or file
   * budget is spent or the account's would be overspent; undefined while there is room.
   */
  resourcesExhausted(storage: 'memory' | 'file', bytes: number): JsErrorEntry | undefined;
  /** Another stream of the same account (a mirror's or source's origin). */
  stream(name: string): Stream | undefined;
  /**
   * Whether a message on the stream's subjects is someone else's to store (the `$OBJ` API's
   * client uploads to a document-layout bucket); the stream then neither stores nor acks it.
   */
  claims?(stream: Stream, message: InternalMessage): boolean;
  /** The server's open atomic batches and their limits. */
  readonly batchBudget: BatchBudget;
}

const MAX_HEADER_BYTES = 65_535;
const DIRECT_GET_GROUP = '_sys_';

const storeFailure: Partial<Record<StoreError['code'], string>> = {
  'max-msgs': 'maximum messages exceeded',
  'max-bytes': 'maximum bytes exceeded',
  'max-per-subject': 'maximum messages per subject exceeded',
  'too-large': 'message too large',
  closed: 'store is closed',
};

export class Stream<Consumers extends StreamConsumerSet = StreamConsumerSet> implements FeedTarget {
  #config: StreamConfig;
  readonly #watchers = new Set<StreamWatcher>();
  #feeds: Feed[] = [];
  readonly #host: StreamHost;
  readonly #subscriptions: Subscription[] = [];
  readonly #duplicates: DuplicateWindow;
  readonly consumers: Consumers;
  #lastMsgId = '';
  readonly #pubAcks: PubAcks;
  #republish: SubjectTransform | undefined;
  /** The stream's `subject_transform`, applied to every subject it stores. */
  #inputTransform: SubjectTransform | undefined;
  /** The trace of the message being captured (nats-server 2.11), while #ingest runs for it. */
  #traced: JetStreamTrace | undefined;
  readonly #batches: AtomicBatches;
  /** The origin subject of the sourced message being ingested (a counter keys its totals by it). */
  #sourcedFrom: string | undefined;
  /** With `allow_msg_schedules`: the schedules stored in the stream, and their timer. */
  #schedules: MessageSchedules | undefined;
  /** Messages found damaged since the start (js-account.ts): the state's `lost`, as nats-server's. */
  lost: LostMessages | undefined;

  constructor(
    host: StreamHost,
    config: StreamConfig,
    readonly store: MessageStore,
    /** Nanoseconds since the epoch. */
    readonly created: bigint,
    consumersOf: (stream: Stream<Consumers>) => Consumers,
  ) {
    this.#host = host;
    this.#pubAcks = new PubAcks(host.client, store.kind === 'memory', (reply) =>
      this.#reject(reply, jsErrors.JSInsufficientResourcesErr),
    );
    this.consumers = consumersOf(this);
    this.#config = config;
    this.#duplicates = new DuplicateWindow(windowMs(config));
    // A new stream starts at first_seq (nats-server's stores purge up to it when they open).
    if (config.first_seq && store.state().lastSeq === 0) store.compact(config.first_seq);
    this.#configure();
    this.#lastMsgId = this.#duplicates.recover(store, BigInt(config.duplicate_window ?? 0));
    this.#batches = new AtomicBatches({
      name: config.name,
      config: () => this.#config,
      store,
      client: host.client,
      budget: host.batchBudget,
      exhausted: (bytes) => host.resourcesExhausted(this.#config.storage ?? 'file', bytes),
      storedSubject: (subject) => this.#inputTransform?.(subject) || subject,
      isDuplicate: (msgId) => this.#duplicates.seqOf(msgId) !== undefined,
      ingest: (m) => this.#ingest(m.subject, undefined, m.headers, m.payload, 'batched'),
      acknowledge: (reply, seq, fields) =>
        this.#pubAcks.whenDurable(store.whenDurable(), reply, seq, fields),
      abandoned: (batchId, reason) => host.advisories.batchAbandoned(this.name, batchId, reason),
      logError: (text) => host.logger.error(text),
    });
  }

  get name(): string {
    return this.#config.name;
  }

  get config(): StreamConfig {
    return this.#config;
  }

  /**
   * Starts capturing its subjects, following its mirror or sources, and answering direct gets
   * when allowed (a direct mirror also answers for its origin).
   */
  start(): void {
    const client = this.#host.client;
    const { subjects, allow_direct, mirror, mirror_direct, sources } = this.#config;
    for (const subject of subjects ?? []) {
      this.#subscriptions.push(client.subscribe(subject, (m) => this.#capture(m)));
    }
    if (allow_direct) this.#answerDirectGets(this.name);
    if (mirror && mirror_direct) this.#answerDirectGets(mirror.name);
    const lookup = (name: string) => this.#host.stream(name);
    const feed = (origin: StreamSource, kind: 'mirror' | 'source'): Feed =>
      origin.external
        ? new ExternalFeed(this, origin, kind, this.#host)
        : new OriginFeed(this, origin, kind, lookup);
    this.#feeds = [
      ...(mirror ? [feed(mirror, 'mirror')] : []),
      ...(sources ?? []).map((source) => feed(source, 'source')),
    ];
    for (const feed of this.#feeds) feed.start();
  }

  /** A leaf connection of the account came up: feeds from across it that are not running ask again. */
  linkUp(): void {
    for (const feed of this.#feeds) feed.linkUp?.();
  }

  /** Tells `watcher` of every message this stream stores, and of its end. */
  watch(watcher: StreamWatcher): () => void {
    this.#watchers.add(watcher);
    return () => this.#watchers.delete(watcher);
  }

  /** The mirror's and sources' progress, as stream info shows them. */
  origins(): { mirror?: object; sources?: object[] } {
    const infos = this.#feeds.map((feed) => feed.info());
    if (this.#config.mirror) return { mirror: infos[0]! };
    return infos.length > 0 ? { sources: infos } : {};
  }

  get lastSeq(): number {
    return this.store.state().lastSeq;
  }

  findLast(match: (message: StoredMessage) => boolean): StoredMessage | undefined {
    const { firstSeq, lastSeq } = this.store.state();
    for (let seq = lastSeq; seq >= firstSeq; seq--) {
      const message = this.load(seq);
      if (message && match(message)) return message;
    }
    return undefined;
  }

  storeMirrored(message: StoredMessage): void {
    try {
      const headers = withoutBatchHeaders(message.headers);
      this.store.store(message.subject, headers, message.payload, message);
    } catch (error) {
      this.#host.logger.error(
        `JetStream mirror '${this.name}' could not store message ${message.seq}: ${(error as Error).message}`,
      );
      return;
    }
    this.#stored(message.subject);
  }

  storeSourced(
    subject: string,
    headers: Uint8Array,
    payload: Uint8Array,
    originSubject: string,
  ): void {
    this.#sourcedFrom = originSubject;
    try {
      this.#ingest(subject, undefined, withoutBatchHeaders(headers), payload, 'sourced');
    } finally {
      this.#sourcedFrom = undefined;
    }
  }

  #answerDirectGets(streamName: string): void {
    const client = this.#host.client;
    // A queue group, so that a stream and its direct mirrors share the requests.
    const base = `$JS.API.DIRECT.GET.${streamName}`;
    this.#subscriptions.push(
      client.subscribe(base, (m) => this.#directGet(m, undefined), DIRECT_GET_GROUP),
      client.subscribe(
        `${base}.>`,
        (m) => this.#directGet(m, m.subject.slice(base.length + 1)),
        DIRECT_GET_GROUP,
      ),
    );
  }

  /** After a message is stored: wake the consumers and the streams that follow this one. */
  #stored(subject: string): void {
    this.consumers.appended(subject);
    for (const watcher of this.#watchers) watcher.appended();
  }

  /** Applies a checked config: new limits, new subjects, a new duplicate window. */
  update(config: StreamConfig): void {
    const becameInterest = config.retention === 'interest' && this.#config.retention !== 'interest';
    this.#config = config;
    if (!config.allow_atomic) this.#batches.abandonAll();
    this.store.updateLimits(storeLimitsOf(config));
    this.#duplicates.window = windowMs(config);
    this.#configure();
    this.#stop();
    this.start();
    // What the consumers have all acked goes now (nats-server checks each consumer's state).
    if (becameInterest) this.consumers.retentionBecameInterest();
  }

  /**
   * An update that changes consumer_limits is refused when a consumer exceeds the new ones,
   * as nats-server 2.10/2.11 compares them (stream.go:1703-1725 at v2.10.0): a limit of 0
   * (unset) is exceeded by any consumer value above 0.
   */
  checkConsumerLimits(updated: StreamConfig): void {
    const before = this.#config.consumer_limits ?? {};
    const after = updated.consumer_limits ?? {};
    const inactive = after.inactive_threshold ?? 0;
    const ackPending = after.max_ack_pending ?? 0;
    if (
      (before.inactive_threshold ?? 0) === inactive &&
      (before.max_ack_pending ?? 0) === ackPending
    ) {
      return;
    }
    const violating = this.consumers
      .sorted()
      .filter(
        ({ config }) =>
          (config.inactive_threshold ?? 0) > inactive || (config.max_ack_pending ?? 0) > ackPending,
      )
      .map((consumer) => consumer.name);
    if (violating.length > 0) {
      throw ApiError.of(jsErrors.JSStreamUpdateErrF, {
        err: `change to limits violates consumers: ${violating.join(', ')}`,
      });
    }
  }

  async close(): Promise<void> {
    this.consumers.close();
    this.#stop();
    this.#ended();
    await this.store.close();
  }

  async delete(): Promise<void> {
    this.consumers.deleteAll();
    this.#stop();
    this.#ended();
    await this.store.delete();
  }

  /** Stream state in nats-server's shape. */
  state(options: { subjectsFilter?: string; deleted?: boolean } = {}): StreamState {
    const s = this.store.state({ deleted: options.deleted });
    const empty = s.messages === 0 && s.lastSeq === 0;
    // Built in nats-server's key order; consumer_count comes last.
    const state = {
      messages: s.messages,
      bytes: s.bytes,
      first_seq: empty ? 0 : s.firstSeq,
      first_ts: wireTime(s.firstTime),
      last_seq: s.lastSeq,
      last_ts: wireTime(s.lastTime),
    } as StreamState;
    if (s.numSubjects > 0) state.num_subjects = s.numSubjects;
    if (options.subjectsFilter) {
      const subjects: Record<string, number> = {};
      for (const [subject, ss] of this.store.subjectsState(options.subjectsFilter)) {
        subjects[subject] = ss.messages;
      }
      if (Object.keys(subjects).length > 0) state.subjects = subjects;
    }
    if (s.numDeleted > 0) state.num_deleted = s.numDeleted;
    if (options.deleted && s.deleted?.length) state.deleted = s.deleted;
    if (this.lost) state.lost = { msgs: [...this.lost.msgs], bytes: this.lost.bytes };
    state.consumer_count = this.consumers.count;
    return state;
  }

  purge(options: PurgeOptions): number {
    if (this.#config.sealed) throw ApiError.of(jsErrors.JSStreamSealedErr);
    if (this.#config.deny_purge) {
      throw ApiError.of(jsErrors.JSStreamPurgeFailedF, { err: 'stream purge not permitted' });
    }
    const purged = this.store.purge(options);
    // nats-server moves the consumers even when nothing was purged.
    this.consumers.purged(options);
    if (!options.subject && !options.keep && !options.seq) this.#duplicates.clear();
    return purged;
  }

  deleteMessage(seq: number, erase: boolean): void {
    if (this.#config.sealed) throw ApiError.of(jsErrors.JSStreamSealedErr);
    if (this.#config.deny_delete) {
      throw ApiError.of(jsErrors.JSStreamMsgDeleteFailedF, { err: 'message delete not permitted' });
    }
    const removed = erase ? this.store.erase(seq) : this.store.remove(seq);
    if (!removed) throw ApiError.of(jsErrors.JSSequenceNotFoundErrF, { seq });
  }

  /** The message at `seq`, or undefined when there is none (a damaged one throws 'corrupt'). */
  load(seq: number): StoredMessage | undefined {
    try {
      return this.store.load(seq);
    } catch (error) {
      if (error instanceof StoreError && (error.code === 'not-found' || error.code === 'eof')) {
        return undefined;
      }
      throw error;
    }
  }

  #configure(): void {
    const { name, republish, subject_transform } = this.#config;
    this.#pubAcks.configure(name, this.#host.domain);
    this.#republish = republish && subjectTransform(republish.src || '>', republish.dest);
    this.#inputTransform = subject_transform?.dest
      ? subjectTransform(subject_transform.src, subject_transform.dest)
      : undefined;
    if (this.#config.allow_msg_schedules && !this.#schedules) this.#startSchedules();
    const markerTtl = this.#config.subject_delete_marker_ttl ?? 0;
    this.store.onAgedOutLast(markerTtl > 0 ? (m) => this.#markDeleted(m, markerTtl) : undefined);
  }

  /**
   * max_age removed the last message of a subject: leave a delete marker there, unless that
   * message was a marker itself (v2.11.0 memstore.go:978-1014, filestore.go:4697). The marker
   * goes through the publish rules, and is refused if the subject got a message meanwhile.
   */
  #markDeleted(removed: StoredMessage, markerTtlNanos: number): void {
    if (removed.headers && headerValue(removed.headers, MARKER_REASON_HEADER) !== undefined) return;
    const ttlSeconds = Math.trunc(markerTtlNanos / 1_000_000_000);
    const headers = withHeaders(undefined, [
      [MARKER_REASON_HEADER, 'MaxAge'],
      [TTL_HEADER, formatGoDuration(ttlSeconds * 1_000_000_000)],
      ['Nats-Expected-Last-Subject-Sequence', '0'],
      ['Nats-Expected-Last-Subject-Sequence-Subject', removed.subject],
    ]);
    this.#ingest(removed.subject, undefined, headers, new Uint8Array(0), 'marker');
  }

  #directGet(message: InternalMessage, lastBySubject: string | undefined): void {
    if (!message.reply) return;
    const replies = directGetReplies(this, message.payload, lastBySubject, message.headers);
    for (const { headers, payload } of replies) {
      this.#host.client.publish(message.reply, payload, { headers });
    }
  }

  #startSchedules(): void {
    this.#schedules = new MessageSchedules(
      {
        load: (seq) => this.load(seq),
        loadNext: (seq) => this.store.loadNext('', seq),
        loadLast: (subject) => this.#loadLastOf(subject),
        storeFired: (subject, headers, payload) =>
          this.#ingest(subject, undefined, headers, payload, 'scheduled'),
      },
      this.#host.logger,
    );
    this.#schedules.recover(this.store.state().firstSeq);
  }

  #ended(): void {
    this.#schedules?.stop();
    this.#batches.abandonAll();
    for (const watcher of [...this.#watchers]) watcher.closed();
    this.#watchers.clear();
  }

  #stop(): void {
    for (const feed of this.#feeds.splice(0)) feed.stop();
    for (const sub of this.#subscriptions.splice(0)) this.#host.client.unsubscribe(sub);
  }

  /** Called from inside the router's fan-out: stores synchronously, answers later. */
  #capture(message: InternalMessage): void {
    if (this.#host.claims?.(this, message)) return;
    this.#traced = activeTrace()?.jetStream(this.name);
    // As nats-server, a stored copy of a traced message starts no trace of its own.
    const traceHeadersOff = this.#traced !== undefined && !this.#traced.only;
    const headers = traceHeadersOff ? withTraceHeadersDisabled(message.headers) : message.headers;
    try {
      if (this.#batches.take(message, headers)) return;
      this.#ingest(message.subject, message.reply, headers, message.payload);
    } catch (error) {
      this.#host.logger.error(
        `JetStream failed to store a message on stream '${this.name}': ${(error as Error).message}`,
      );
      if (message.reply) this.#reject(message.reply, jsErrors.JSInsufficientResourcesErr);
    } finally {
      this.#traced = undefined;
    }
  }

  #ingest(
    received: string,
    reply: string | undefined,
    headers: Uint8Array | undefined,
    payload: Uint8Array,
    /** 'batched': a message of a committed atomic batch, whose checks batch-checks.ts made. */
    /** 'scheduled': fired by a schedule, stored as a sourced message is, unchecked. */
    origin: 'published' | 'sourced' | 'marker' | 'batched' | 'scheduled' = 'published',
  ): undefined {
    const config = this.#config;
    // A marker's subject is already a stored one.
    const subject = (origin !== 'marker' && this.#inputTransform?.(received)) || received;
    if (config.sealed) return this.#reject(reply, jsErrors.JSStreamSealedErr);
    const counters = config.allow_msg_counter ?? false;
    const copied = origin === 'sourced' || origin === 'scheduled';
    const badIncrement = refuseIncrement(headers, payload, copied, counters);
    if (badIncrement) return this.#reject(reply, badIncrement);
    if (!copied && origin !== 'marker') {
      const admitted = admitSchedule(subject, headers, config, (s) => this.#loadLastOf(s));
      if ('refused' in admitted) return this.#reject(reply, admitted.refused);
      headers = admitted.headers;
    }
    let msgId = '';
    let rollup = '';
    if (headers && headers.length > 0) {
      const expectedStream = headerValue(headers, 'Nats-Expected-Stream');
      if (expectedStream && expectedStream !== config.name) {
        return this.#reject(reply, jsErrors.JSStreamNotMatchErr);
      }
      // v2.11.0 stream.go:4884-4897: a TTL on a stream without TTLs refuses the message.
      if (origin !== 'sourced' && !config.allow_msg_ttl && storedTtl(headers) !== 0) {
        return this.#reject(reply, jsErrors.JSMessageTTLDisabledErr);
      }
      msgId = headerValue(headers, 'Nats-Msg-Id') ?? '';
      if (msgId && origin !== 'batched') {
        const seq = this.#duplicates.seqOf(msgId);
        if (seq !== undefined) {
          this.#traced?.failed('msgid is duplicate');
          if (reply) this.#pubAcks.duplicate(reply, seq);
          return;
        }
      }
      const lastBySubject = headerValue(headers, 'Nats-Expected-Last-Subject-Sequence');
      if (lastBySubject !== undefined && origin !== 'batched') {
        // 2.11 may name the subject (or filter) to check (v2.11.0 stream.go:4918-4923).
        const checked =
          headerValue(headers, 'Nats-Expected-Last-Subject-Sequence-Subject') || subject;
        const last = this.#lastSeqOf(checked);
        if (last !== Number(lastBySubject)) {
          return this.#reject(reply, jsErrors.JSStreamWrongLastSequenceErrF, { seq: last });
        }
      }
      const lastSeq = headerValue(headers, 'Nats-Expected-Last-Sequence');
      if (lastSeq !== undefined && origin !== 'batched') {
        const last = this.store.state().lastSeq;
        if (Number(lastSeq) !== last) {
          return this.#reject(reply, jsErrors.JSStreamWrongLastSequenceErrF, { seq: last });
        }
      }
      const lastMsgId = headerValue(headers, 'Nats-Expected-Last-Msg-Id');
      if (lastMsgId && lastMsgId !== this.#lastMsgId) {
        return this.#reject(reply, jsErrors.JSStreamWrongLastMsgIDErrF, { id: this.#lastMsgId });
      }
      rollup = headerValue(headers, 'Nats-Rollup') ?? '';
      if (rollup) {
        if (!config.allow_rollup_hdrs || config.deny_purge) {
          return this.#reject(reply, jsErrors.JSStreamRollupFailedF, {
            err: 'rollup not permitted',
          });
        }
        if (rollup !== 'sub' && rollup !== 'all') {
          return this.#reject(reply, jsErrors.JSStreamRollupFailedF, {
            err: `rollup value invalid: ${JSON.stringify(rollup)}`,
          });
        }
      }
    }
    let ackFields: string | undefined;
    if (counters) {
      const previous = this.#loadLastOf(subject);
      const counted = countMessage(
        headers,
        payload,
        previous,
        this.#sourcedFrom,
        this.#host.maxPayload,
      );
      if (!('total' in counted)) return this.#reject(reply, counted);
      ({ headers, payload } = counted);
      ackFields = totalAckFields(counted.total);
    }
    const maxSize = config.max_msg_size ?? -1;
    if (maxSize >= 0 && (headers?.length ?? 0) + payload.length > maxSize) {
      return this.#reject(reply, jsErrors.JSStreamMessageExceedsMaximumErr);
    }
    if ((headers?.length ?? 0) > MAX_HEADER_BYTES) {
      return this.#reject(reply, jsErrors.JSStreamHeaderExceedsMaximumErr);
    }
    const bytes = received.length + (headers?.length ?? 0) + payload.length;
    const exhausted = this.#host.resourcesExhausted(config.storage ?? 'file', bytes);
    if (exhausted) return this.#reject(reply, exhausted);
    // v2.11.0 stream.go:5154-5165: checked last, just before storing.
    try {
      messageTtl(headers);
    } catch (error) {
      if (!(error instanceof InvalidTtl)) throw error;
      return this.#reject(reply, jsErrors.JSMessageTTLInvalidErr);
    }
    if (this.#traced) {
      const noInterest = config.retention === 'interest' && !this.consumers.interestedIn(subject);
      this.#traced.stored(subject, noInterest);
      // Trace-only: every check made, nothing stored, no PubAck.
      if (this.#traced.only) return;
    }
    // Republished messages carry the subject's previous sequence, read before storing.
    const previous = this.#republish ? this.#lastSeqOf(subject) : 0;
    let position: { seq: number; time: bigint };
    try {
      position = this.store.store(subject, headers, payload);
    } catch (error) {
      if (!(error instanceof StoreError)) throw error;
      const err = storeFailure[error.code];
      if (err) return this.#reject(reply, jsErrors.JSStreamStoreFailedF, { err });
      this.#host.logger.error(
        `JetStream failed to store a message on stream '${this.name}': ${error.message}`,
      );
      return this.#reject(reply, jsErrors.JSInsufficientResourcesErr);
    }
    const { seq } = position;
    this.#lastMsgId = msgId;
    if (msgId) this.#duplicates.record(msgId, seq);
    // Followers copy the message at once when they are caught up, so that interest retention
    // (which keeps a message only for the consumers that will see it) loses nothing for them.
    this.#stored(subject);
    if (config.retention === 'interest' && !this.consumers.interestedIn(subject)) {
      this.store.remove(seq);
    }
    if (rollup) {
      const purge = rollup === 'sub' ? { subject, keep: 1 } : { keep: 1 };
      this.store.purge(purge);
      this.consumers.purged(purge);
    }
    const finished = finishedSchedule(headers);
    if (finished) {
      this.store.purge({ subject: finished });
      this.consumers.purged({ subject: finished });
    }
    this.#schedules?.stored(seq, subject, headers, position.time);
    if (this.#republish) this.#republishStored(subject, headers, payload, seq, previous);
    // Asked even with no reply to answer: asking is what has a file store sync the message.
    const durable = this.store.whenDurable();
    if (reply) this.#pubAcks.whenDurable(durable, reply, seq, ackFields);
  }

  #lastSeqOf(subject: string): number {
    return this.#loadLastOf(subject)?.seq ?? 0;
  }

  #loadLastOf(subject: string): StoredMessage | undefined {
    try {
      return this.store.loadLast(subject);
    } catch {
      return undefined;
    }
  }

  #republishStored(
    subject: string,
    headers: Uint8Array | undefined,
    payload: Uint8Array,
    seq: number,
    previous: number,
  ): void {
    const destination = this.#republish!(subject);
    if (!destination) return;
    const headersOnly = this.#config.republish?.headers_only ?? false;
    const entries: [string, string][] = [
      ['Nats-Stream', this.name],
      ['Nats-Subject', subject],
      ['Nats-Sequence', String(seq)],
      ['Nats-Last-Sequence', String(previous)],
    ];
    if (headersOnly) entries.push(['Nats-Msg-Size', String(payload.length)]);
    this.#host.client.publish(destination, headersOnly ? new Uint8Array(0) : payload, {
      headers: withHeaders(headers, entries),
    });
  }

  #reject<E extends JsErrorEntry>(
    reply: string | undefined,
    entry: E,
    values?: Parameters<typeof ApiError.of<E>>[1],
  ): undefined {
    this.#traced?.failed(ApiError.of(entry, values).description);
    if (!reply) return;
    this.#host.client.respond(reply, pubAckRefusal(this.name, ApiError.of(entry, values)));
  }
}

function windowMs(config: StreamConfig): number {
  return (config.duplicate_window ?? 0) / 1_000_000;
}
