/**
 * Room `jetstream/consumer/` (this is its main file): the consumers of a stream
 * (`stream-consumers.ts`) and everything one consumer is made of: its config, filters, start
 * position, pause, delivery state and its saving, pull requests (body, wait queue, priority
 * groups), acks, redelivery, flow control, rate limit, status messages and advisories.
 *
 * One consumer of a stream: its config, its delivery state (consumer-state.ts), the deliver
 * pass that sends what it may to a push subject or to waiting pull requests, and its own
 * subscriptions: acks on `$JS.ACK.<stream>.<name>.*.*.*.*.*`, pull requests on its MSG.NEXT
 * subject, flow control replies on `$JS.FC.<stream>.<name>.*`. It is woken by its stream's
 * appends, by acks and by requests (signal.ts), never by polling; redeliveries wait on one
 * timer queue (redelivery.ts). This file is its life (create, update, stop, info) and its
 * deliver pass; what an ack does is ack-handling.ts, the push side (interest, flow control,
 * rate limit, heartbeats) push-delivery.ts, its inactive_threshold inactivity.ts.
 */
import {
  ApiError,
  apiResponseType,
  type ConsumerConfig,
  type ConsumerInfo,
  jsErrors,
} from '@slipstream/jsapi';
import type { InternalMessage } from '../../internal-client.js';
import type { Subscription } from '../../subscription.js';
import { afterWait } from '../../timer-delay.js';
import { withHeaders } from '../shared/header-block.js';
import { nowNanos, wireTime } from '../shared/wire-time.js';
import type { ConsumerStore, StoredMessage } from '../store/message-store.js';
import type { Stream, StreamHost } from '../stream/stream.js';
import { requiredApiLevelRefused } from '../stream/stream-api-level.js';
import { AckHandling } from './ack-handling.js';
import { withServerConsumerLevel } from './consumer-api-level.js';
import { isPull, wireConsumerConfig } from './consumer-config.js';
import { ConsumerEvents } from './consumer-events.js';
import { SubjectFilters } from './consumer-filters.js';
import { ConsumerPause } from './consumer-pause.js';
import { resetRequestSeq, resetSequence } from './consumer-reset.js';
import { startPosition } from './consumer-start.js';
import { DeliveryState } from './consumer-state.js';
import { ConsumerStateSaver } from './consumer-state-saver.js';
import { InactivityWatch } from './inactivity.js';
import { PriorityGroups } from './priority-groups.js';
import { PullRequests } from './pull-requests.js';
import { PushDelivery } from './push-delivery.js';
import { ackWaitMs, moveDeadlines, RedeliveryTimer } from './redelivery.js';
import { Signal } from './signal.js';
import { idleHeartbeat, statusHeaders } from './status-message.js';

/** What a consumer needs from the stream's set of consumers. */
export interface ConsumerOwner {
  /** The stream's retention learns which messages this consumer acknowledged. */
  acked(consumer: Consumer, seqs: number[]): void;
  /** The consumer was reset: under interest retention what nobody needs now goes. */
  wasReset(consumer: Consumer): void;
  /** The consumer removes itself (inactive too long). */
  expired(consumer: Consumer): void;
}

interface Candidate {
  message: StoredMessage;
  deliveries: number;
  redelivery: boolean;
}

const EMPTY = new Uint8Array(0);
const NANOS_PER_MS = 1_000_000;
/** Messages one deliver pass sends before it lets I/O through. */
const PASS_LIMIT = 256;

export class Consumer {
  #config: ConsumerConfig;
  #filters: SubjectFilters;
  #state: DeliveryState;
  readonly #stream: Stream;
  readonly #host: StreamHost;
  readonly #owner: ConsumerOwner;
  readonly #signal = new Signal(() => this.#deliverPass());
  readonly #redelivery = new RedeliveryTimer(
    (seqs) => {
      if (this.#state.queueDue(seqs, Date.now())) this.#signal.raise();
    },
    () => this.#state.pending,
  );
  /** pause_until: delivery waits for it; its passing is announced and delivery resumes. */
  readonly #pause = new ConsumerPause(() => this.#pauseChanged());
  readonly #subscriptions: Subscription[] = [];
  readonly #ackPrefix: string;
  readonly events: ConsumerEvents;
  readonly #pull: PullRequests | undefined;
  /** Pull consumers: priority_groups / priority_policy. */
  readonly #priority: PriorityGroups | undefined;
  #closed = false;
  /** last_per_subject: the sequences still to deliver first, and where to go on after. */
  #skip: number[] = [];
  #resume = 0;
  /** Messages left for a first delivery, counted once and then kept up to date. */
  #pendingCount: number | undefined;
  /** Last delivery, ms since the epoch (0: never): a number, not a nanosecond bigint, as it
   * changes with every message and only the info reads it. */
  #lastDeliveredMs = 0;
  /** Replay original: the stored time of the previous delivery and the wait for the next. */
  #replayFrom = 0n;
  /** Delivery waits (replay original, rate limit) until this fires. */
  #holdTimer: NodeJS.Timeout | undefined;
  readonly #inactivity: InactivityWatch;
  /** Push consumers: interest, flow control, rate limit and heartbeats. */
  readonly #push: PushDelivery | undefined;
  readonly #saver: ConsumerStateSaver;
  readonly #acks: AckHandling;

  constructor(
    stream: Stream,
    host: StreamHost,
    owner: ConsumerOwner,
    readonly name: string,
    config: ConsumerConfig,
    /** Nanoseconds since the epoch. */
    readonly created: bigint,
    savedState: string | undefined,
    /** Where its config and state are kept; none when they live in memory only. */
    readonly store: ConsumerStore | undefined,
  ) {
    this.#stream = stream;
    this.#host = host;
    this.#saver = new ConsumerStateSaver(store, name, () => this.#state.encode());
    this.#owner = owner;
    this.#config = config;
    this.#filters = new SubjectFilters(config);
    this.#ackPrefix = `$JS.ACK.${stream.name}.${name}.`;
    this.events = new ConsumerEvents(host.advisories, stream.name, name);
    const wake = () => this.#signal.raise();
    this.#priority = isPull(config)
      ? new PriorityGroups(() => this.#config, this.events, wake)
      : undefined;
    this.#pull = this.#priority
      ? new PullRequests({
          client: host.client,
          config: () => this.#config,
          available: () => this.#numPending() + this.#state.redeliverQueue.size,
          heartbeat: () => this.#heartbeat(),
          wake,
          priority: this.#priority,
        })
      : undefined;
    this.#push = this.#pull
      ? undefined
      : new PushDelivery({
          client: host.client,
          config: () => this.#config,
          heartbeat: () => this.#heartbeat(),
          wake,
          activeChanged: () => this.#inactivity.watch(),
          isClosed: () => this.#closed,
        });
    this.#inactivity = new InactivityWatch({
      config: () => this.#config,
      isClosed: () => this.#closed,
      pull: this.#pull,
      push: this.#push,
      wake,
      expired: () => owner.expired(this),
    });
    if (savedState) {
      this.#state = DeliveryState.decode(savedState, (_, time, deliveries) =>
        this.#dueAfter(time, deliveries),
      );
      for (const [seq, pending] of this.#state.pending) this.#redelivery.schedule(seq, pending.due);
    } else {
      this.#state = new DeliveryState();
      const start = startPosition(config, this.#filters, stream.store);
      this.#state.startAt(start.seq);
      this.#skip = start.skip;
      this.#resume = start.resume;
      this.#saver.now();
    }
    this.#acks = new AckHandling(
      {
        stream,
        client: host.client,
        state: this.#state,
        events: this.events,
        saver: this.#saver,
        redelivery: this.#redelivery,
        signal: this.#signal,
        acked: (seqs) => owner.acked(this, seqs),
        pullRequest: (reply, body) => this.#pullRequest(reply, body),
      },
      config,
    );
  }

  get config(): ConsumerConfig {
    return this.#config;
  }

  get filters(): SubjectFilters {
    return this.#filters;
  }

  /** Subscribes and starts delivering. */
  start(): void {
    const client = this.#host.client;
    const stream = this.#stream.name;
    this.#subscriptions.push(
      client.subscribe(`${this.#ackPrefix}*.*.*.*.*`, (m) => this.#acks.received(m)),
    );
    // A push consumer listens too, to tell a pull request it is push based (as nats-server).
    this.#subscriptions.push(
      client.subscribe(`$JS.API.CONSUMER.MSG.NEXT.${stream}.${this.name}`, (m) => {
        // v2.12.1 consumer.go:4113-4118
        if (m.reply && !this.#closed && this.#pull && requiredApiLevelRefused(m.headers)) {
          this.#host.client.publish(m.reply, EMPTY, {
            headers: statusHeaders(412, 'Required Api Level'),
          });
        } else this.#pullRequest(m.reply, m.payload);
      }),
    );
    this.#subscriptions.push(
      client.subscribe(`$JS.API.CONSUMER.RESET.${stream}.${this.name}`, (m) =>
        this.#resetRequest(m),
      ),
    );
    this.#push?.start(
      `$JS.FC.${stream}.${this.name}.`,
      this.#subscriptions,
      this.#stream.config.max_msg_size,
    );
    this.#inactivity.watch();
    this.#pause.set(this.#config.pause_until);
    this.#signal.raise();
  }

  /** A new config from an update (checkConsumerUpdate allowed it). */
  update(config: ConsumerConfig): void {
    const deliverChanged = config.deliver_subject !== this.#config.deliver_subject;
    const rateChanged = config.rate_limit_bps !== this.#config.rate_limit_bps;
    const before = this.#config;
    this.#config = config;
    this.#acks.configure(config);
    moveDeadlines(this.#state, before, config, this.#redelivery);
    // New filters keep the position; what is pending is counted again (nats-server 2.10).
    this.#filters = new SubjectFilters(config);
    this.#pendingCount = undefined;
    if (deliverChanged) {
      this.#state.queueAllPending();
      // Waiting for a listener of the old subject is over.
      this.#push?.stopWaitingForInterest();
    }
    if (rateChanged) this.#push?.limitRate(this.#stream.config.max_msg_size);
    this.#inactivity.watch();
    // A changed pause is announced whether it starts, moves or ends (2.11 consumer.go:2203-2216).
    if (this.#pause.set(config.pause_until)) this.#pauseChanged();
    this.#signal.raise();
  }

  get paused(): boolean {
    return this.#pause.paused;
  }

  /** Nanoseconds until a paused consumer resumes (0: not paused). */
  get pauseRemaining(): number {
    return Number(this.#pause.remaining());
  }

  #pauseChanged(): void {
    this.events.paused(this.#pause.deadline, this.#pause.paused);
    this.#signal.raise();
  }

  /** A message was stored on the stream. */
  appended(subject: string): void {
    if (!this.#filters.matches(subject)) return;
    if (this.#pendingCount !== undefined) this.#pendingCount++;
    this.#signal.raise();
  }

  /**
   * A purge concerning this consumer (nats-server 2.9.10 consumer purge): it goes on from
   * `start` at the earliest, its floor rises below it, and nothing it has out is waited for
   * any more, not even a message the purge left (the redelivery counts stay).
   */
  purged(start: number): void {
    const state = this.#state;
    if (state.nextStreamSeq < start) state.nextStreamSeq = start;
    if (state.ackFloor.stream < start) {
      state.ackFloor.stream = start - 1;
      state.ackFloor.consumer = state.nextDeliverySeq - 1;
    }
    state.pending.clear();
    for (const seq of state.redeliverQueue) {
      if (seq < state.nextStreamSeq) state.redeliverQueue.delete(seq);
    }
    this.#skip = this.#skip.filter((seq) => seq >= state.nextStreamSeq);
    this.#pendingCount = undefined;
    this.#saver.now();
    this.#signal.raise();
  }

  /**
   * CONSUMER.RESET: answered with the consumer's info and `reset_seq`, or the error
   * (processResetReq, v2.14.2 consumer.go:4495-4530).
   */
  #resetRequest(message: InternalMessage): void {
    if (!message.reply || this.#closed) return;
    let body: object;
    try {
      if (requiredApiLevelRefused(message.headers)) {
        throw ApiError.of(jsErrors.JSRequiredApiLevelErr);
      }
      const requested = resetRequestSeq(message.payload);
      const floor = this.#state.resetFloor;
      const seq = resetSequence(this.#config, floor, requested, this.#stream.store);
      this.#resetTo(seq);
      body = { ...withServerConsumerLevel(this.info()), reset_seq: seq };
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      body = {
        error: { code: error.code, err_code: error.errCode, description: error.description },
      };
    }
    const type = apiResponseType('consumer_reset_response');
    this.#host.client.publish(message.reply, Buffer.from(JSON.stringify({ type, ...body })));
  }

  #resetTo(seq: number): void {
    this.#state.resetTo(seq);
    this.#redelivery.clear();
    this.#skip = [];
    this.#resume = 0;
    this.#pendingCount = undefined;
    this.#lastDeliveredMs = 0;
    this.#acks.lastAckedMs = 0;
    this.#saver.now();
    this.#owner.wasReset(this);
    this.#signal.raise();
  }

  /** Whether this consumer still has to see or ack `seq` (interest retention). */
  needsAck(seq: number, subject: string): boolean {
    if (!this.#filters.matches(subject)) return false;
    const state = this.#state;
    if (seq <= state.ackFloor.stream) return false;
    if (this.#config.ack_policy !== 'explicit') return true;
    return seq >= state.nextStreamSeq || state.pending.has(seq);
  }

  /** Stops delivering; with `deleted`, pull requests learn the consumer is gone. */
  stop(deleted: boolean): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#acks.close();
    // A closing stream keeps what was done; a deleted consumer's state goes with it.
    if (deleted) this.#saver.drop();
    else this.#saver.flush();
    for (const sub of this.#subscriptions.splice(0)) this.#host.client.unsubscribe(sub);
    this.#redelivery.clear();
    this.#pause.stop();
    this.#priority?.stop();
    clearTimeout(this.#holdTimer);
    this.#inactivity.stop();
    this.#push?.stop();
    this.#pull?.stop(deleted);
  }

  /** Writes a state change that was to wait (its store is about to be copied). */
  saveState(): void {
    this.#saver.flush();
  }

  get ackFloor(): number {
    return this.#state.ackFloor.stream;
  }

  info(): ConsumerInfo {
    const state = this.#state;
    this.#pendingCount = undefined;
    const delivered: ConsumerInfo['delivered'] = {
      consumer_seq: state.nextDeliverySeq - 1,
      stream_seq: state.nextStreamSeq - 1,
    };
    if (this.#lastDeliveredMs > 0)
      delivered.last_active = wireTime(BigInt(this.#lastDeliveredMs) * 1_000_000n);
    const ackFloor: ConsumerInfo['ack_floor'] = {
      consumer_seq: state.ackFloor.consumer,
      stream_seq: state.ackFloor.stream,
    };
    if (this.#acks.lastAckedMs > 0)
      ackFloor.last_active = wireTime(BigInt(this.#acks.lastAckedMs) * 1_000_000n);
    this.#pull?.expire(false);
    const info: ConsumerInfo = {
      stream_name: this.#stream.name,
      name: this.name,
      created: wireTime(this.created),
      config: wireConsumerConfig(this.#config),
      delivered,
      ack_floor: ackFloor,
      num_ack_pending: state.pending.size,
      num_redelivered: state.redelivered.size,
      num_waiting: this.#pull?.queue.length ?? 0,
      num_pending: this.#numPending(),
    };
    if (this.#push?.hasInterest()) info.push_bound = true;
    if (this.#pause.paused) {
      info.paused = true;
      info.pause_remaining = this.pauseRemaining;
    }
    // When the info was taken (nats-server 2.10 consumer.go:2510).
    info.ts = wireTime(nowNanos());
    const groups = this.#priority?.state();
    if (groups) info.priority_groups = groups;
    return info;
  }

  /** CONSUMER.UNPIN of `group`: its pin, if any, ends (10160 for a group it does not have). */
  unpin(group: string): void {
    if (!this.#config.priority_groups?.includes(group)) {
      throw ApiError.of(jsErrors.JSConsumerInvalidPriorityGroupErr);
    }
    this.#priority?.unpin('admin');
  }

  // --- delivery -----------------------------------------------------------------------------

  #deliverPass(): void {
    if (this.#closed || this.#holdTimer || this.#pause.paused) return;
    const pull = this.#pull;
    const waiting = pull?.queue;
    if (waiting && waiting.length === 0) return;
    let sent = 0;
    let stalled = false;
    // one clock reading per pass: its PASS_LIMIT messages go out within about a millisecond
    const now = Date.now();
    for (;;) {
      if (!waiting && !this.#push!.canPush()) break;
      if (waiting && waiting.length === 0) break;
      const next = this.#next();
      if (next === 'max-ack-pending') {
        stalled = true;
        break;
      }
      if (!next) break;
      if (this.#waitForReplay(next.message)) return;
      const pendingAfter = this.#pendingAfter(next);
      const { message, deliveries } = next;
      const dseq = this.#state.nextDeliverySeq;
      const reply = `${this.#ackPrefix}${deliveries}.${message.seq}.${dseq}.${message.time}.${pendingAfter}`;
      let headers = message.headers;
      let payload = message.payload;
      if (this.#config.headers_only) {
        headers = withHeaders(headers, [['Nats-Msg-Size', String(payload.length)]]);
        payload = EMPTY;
      }
      const size = message.subject.length + reply.length + (headers?.length ?? 0) + payload.length;
      let target = this.#config.deliver_subject;
      if (waiting) {
        const load = { pending: pendingAfter + 1, ackPending: this.#state.pending.size };
        const request = pull!.take(size, load, now);
        if (!request) {
          this.#notSent(next);
          break;
        }
        target = request.reply;
        // pinned_client: every message names the pin (consumer.go:4538-4550).
        const priority = this.#priority!;
        if (priority.pinned) headers = withHeaders(headers, [['Nats-Pin-Id', priority.pin]]);
      } else {
        const wait = this.#push!.rateWait(size);
        if (wait > 0) {
          this.#notSent(next);
          this.#hold(wait);
          return;
        }
      }
      this.#commit(next);
      this.#host.client.publish(target!, payload, {
        reply,
        headers,
        shownSubject: message.subject,
      });
      this.#delivered(message, dseq, deliveries, size, now);
      if (++sent >= PASS_LIMIT) {
        this.#signal.raiseLater();
        return;
      }
    }
    pull?.expire(!stalled);
  }

  /** The next message to send: a due redelivery first, then the next new one. */
  #next(): Candidate | 'max-ack-pending' | undefined {
    // The size first: iterating even an empty Set allocates, and this runs per message.
    const redelivery = this.#state.redeliverQueue.size > 0 ? this.#nextRedelivery() : undefined;
    return redelivery ?? this.#nextNew();
  }

  /** The first due redelivery that may still go out (max_deliver) and is still stored. */
  #nextRedelivery(): Candidate | undefined {
    const state = this.#state;
    const maxDeliver = this.#config.max_deliver ?? -1;
    for (const seq of state.redeliverQueue) {
      const deliveries = state.deliveries(seq) + 1;
      if (maxDeliver > 0 && deliveries > maxDeliver) {
        state.forget(seq, true);
        this.#saver.now();
        this.events.maxDeliveries(seq, maxDeliver);
        continue;
      }
      const message = this.#stream.load(seq);
      if (!message) {
        state.forget(seq);
        continue;
      }
      return { message, deliveries, redelivery: true };
    }
    return undefined;
  }

  /** The next message not delivered yet, unless max_ack_pending holds delivery back. */
  #nextNew(): Candidate | 'max-ack-pending' | undefined {
    const state = this.#state;
    const maxAckPending = this.#config.max_ack_pending ?? 0;
    if (maxAckPending > 0 && state.pending.size >= maxAckPending) return 'max-ack-pending';
    while (this.#skip.length > 0) {
      const message = this.#stream.load(this.#skip[0]!);
      if (message) return { message, deliveries: 1, redelivery: false };
      this.#skip.shift();
    }
    const message = this.#loadNext(state.nextStreamSeq);
    if (message) return { message, deliveries: 1, redelivery: false };
    // Nothing matches up to the end: start after it next time, as nats-server does.
    const last = this.#stream.store.state().lastSeq;
    if (state.nextStreamSeq <= last) state.nextStreamSeq = last + 1;
    return undefined;
  }

  #loadNext(seq: number): StoredMessage | undefined {
    try {
      return this.#filters.loadNext(this.#stream.store, seq);
    } catch (error) {
      this.#host.logger.error(
        `JetStream consumer '${this.#stream.name} > ${this.name}' could not read the stream: ${(error as Error).message}`,
      );
      return undefined;
    }
  }

  /** Takes the candidate: off the redeliver queue, or past it in the stream. */
  #commit({ message, redelivery }: Candidate): void {
    const state = this.#state;
    if (redelivery) {
      state.redeliver(message.seq);
      return;
    }
    if (this.#skip[0] === message.seq) {
      this.#skip.shift();
      state.nextStreamSeq =
        this.#skip.length > 0 ? message.seq + 1 : Math.max(message.seq + 1, this.#resume);
      return;
    }
    state.nextStreamSeq = message.seq + 1;
  }

  /** Bookkeeping after a message went out. */
  #delivered(
    message: StoredMessage,
    dseq: number,
    deliveries: number,
    size: number,
    now: number,
  ): void {
    const state = this.#state;
    state.nextDeliverySeq = dseq + 1;
    if (this.#config.ack_policy === 'none') {
      state.deliveredWithoutAck(message.seq, dseq);
      if (this.#stream.config.retention !== 'limits') this.#owner.acked(this, [message.seq]);
    } else {
      const due = this.#dueAfter(now, deliveries);
      state.track(message.seq, dseq, now, due);
      this.#redelivery.schedule(message.seq, due);
    }
    this.#lastDeliveredMs = now;
    this.#replayFrom = message.time;
    if (this.#pull) this.#pull.queue.lastActive = now;
    this.#saver.later();
    this.#push?.delivered(size);
  }

  /** The ack subject's pending count: messages left for a first delivery after this one. */
  #pendingAfter(candidate: Candidate): number {
    let count = this.#numPending();
    if (!candidate.redelivery && count > 0) this.#pendingCount = --count;
    return count;
  }

  #numPending(): number {
    this.#pendingCount ??= this.#filters.numPending(
      this.#stream.store,
      this.#state.nextStreamSeq,
      this.#config.deliver_policy === 'last_per_subject',
    );
    return this.#pendingCount;
  }

  /** Replay original: true when the next message must wait for its original spacing. */
  #waitForReplay(message: StoredMessage): boolean {
    if (this.#config.replay_policy !== 'original' || this.#replayFrom === 0n) return false;
    const delayMs = Number(message.time - this.#replayFrom) / NANOS_PER_MS;
    if (delayMs <= 1) return false;
    this.#hold(delayMs, () => {
      this.#replayFrom = message.time;
    });
    return true;
  }

  /** Pauses delivery for `ms`, then runs `then` and delivers on. */
  #hold(ms: number, then?: () => void): void {
    const resume = () => {
      this.#holdTimer = undefined;
      then?.();
      this.#signal.raise();
    };
    // replay `original` waits as long as the stored messages were apart, which may be months
    afterWait(ms, resume, (timer) => {
      this.#holdTimer = timer;
    });
  }

  /** A candidate that did not go out after all still counts as pending. */
  #notSent(candidate: Candidate): void {
    if (!candidate.redelivery && this.#pendingCount !== undefined) this.#pendingCount++;
  }

  /** When the given delivery, made at `time`, is due again. */
  #dueAfter(time: number, deliveries: number): number {
    return time + ackWaitMs(this.#config, deliveries);
  }

  #heartbeat(): Buffer {
    const state = this.#state;
    return idleHeartbeat(state.nextDeliverySeq - 1, state.nextStreamSeq - 1, this.#push?.stalledOn);
  }

  #pullRequest(reply: string | undefined, body: Uint8Array): void {
    if (!reply || this.#closed) return;
    if (this.#pull) this.#pull.request(reply, body);
    else {
      this.#host.client.publish(reply, EMPTY, {
        headers: statusHeaders(409, 'Consumer is push based'),
      });
    }
  }
}
