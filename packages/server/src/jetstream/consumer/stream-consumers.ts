/**
 * The consumers of one stream: creating (with nats-server's order of checks), updating,
 * deleting and restoring them, waking them when the stream stores a message, and the
 * retention rules that need them: a workqueue message goes when it is acked, an interest
 * message once no consumer still has to ack it.
 */
import { randomInt } from 'node:crypto';
import { ApiError, type ConsumerAction, type ConsumerConfig, jsErrors } from '@slipstream/jsapi';
import { nowNanos } from '../shared/wire-time.js';
import type { PurgeOptions } from '../store/message-store.js';
import type { StreamConsumerSet } from '../stream/consumer-set.js';
import type { Stream, StreamHost } from '../stream/stream.js';
import { Consumer, type ConsumerOwner } from './consumer.js';
import { withRequiredConsumerLevel } from './consumer-api-level.js';
import {
  checkConsumerConfig,
  checkConsumerName,
  checkConsumerUpdate,
  sameConsumerConfig,
  withConsumerDefaults,
} from './consumer-config.js';
import { configuredFilters } from './consumer-filters.js';
import { wirePauseUntil } from './consumer-pause.js';

const NAME_CHARS = 'abcdefghijklmnopqrstuvwxyz0123456789';
const GENERATED_NAME_LENGTH = 8;

export class StreamConsumers implements ConsumerOwner, StreamConsumerSet {
  readonly #byName = new Map<string, Consumer>();
  readonly #stream: Stream;
  readonly #host: StreamHost;

  constructor(stream: Stream, host: StreamHost) {
    this.#stream = stream;
    this.#host = host;
  }

  get count(): number {
    return this.#byName.size;
  }

  /** The consumers, sorted by name. */
  sorted(): Consumer[] {
    return [...this.#byName.values()].sort((a, b) =>
      a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
    );
  }

  get(name: string): Consumer {
    const consumer = this.#byName.get(name);
    if (!consumer) throw ApiError.of(jsErrors.JSConsumerNotFoundErr);
    return consumer;
  }

  /** CONSUMER.CREATE: a new consumer, or the update of the one with that name. */
  create(
    requested: ConsumerConfig,
    action: ConsumerAction | undefined,
    pedantic = false,
  ): Consumer {
    const stream = this.#stream.config;
    const checked = withConsumerDefaults(requested, stream, pedantic);
    checkConsumerConfig(checked, stream);
    const config = withRequiredConsumerLevel(checked);
    const name = config.durable_name || config.name;
    const existing = name ? this.#byName.get(name) : undefined;
    if (existing) return this.#update(existing, config, action);
    if (action === 'update') throw ApiError.of(jsErrors.JSConsumerDoesNotExist);
    // The account's limit applies per stream too, and wins when it is lower (nats-server).
    const own = stream.max_consumers ?? -1;
    const account = this.#host.maxConsumers;
    const max = own <= 0 || (account > 0 && account < own) ? account : own;
    if (max > 0 && this.#byName.size >= max) throw ApiError.of(jsErrors.JSMaximumConsumersLimitErr);
    if (stream.retention === 'workqueue') this.#checkWorkQueue(config);
    const consumerName = name || this.#generateName();
    checkConsumerName(consumerName);
    const created = nowNanos();
    const consumer = new Consumer(
      this.#stream,
      this.#host,
      this,
      consumerName,
      config,
      created,
      undefined,
      // mem_storage: nats-server gives the consumer a memory store even on a file stream, so
      // nothing of it is written and a restart does not bring it back. The choice is made
      // here once; an update does not move a consumer between stores.
      config.mem_storage ? undefined : this.#stream.store.consumers,
    );
    consumer.store?.saveConfig(consumerName, JSON.stringify(config), created);
    this.#byName.set(consumerName, consumer);
    consumer.start();
    consumer.events.created();
    return consumer;
  }

  /** CONSUMER.PAUSE: the consumer's config with a new deadline (0: none), as an update. */
  pause(name: string, deadline: bigint): Consumer {
    const consumer = this.get(name);
    return this.#update(
      consumer,
      withRequiredConsumerLevel({ ...consumer.config, pause_until: wirePauseUntil(deadline) }),
      undefined,
    );
  }

  #update(
    existing: Consumer,
    config: ConsumerConfig,
    action: ConsumerAction | undefined,
  ): Consumer {
    if (sameConsumerConfig(existing.config, config)) return existing;
    if (action === 'create') throw ApiError.of(jsErrors.JSConsumerAlreadyExists);
    if (this.#stream.config.retention === 'workqueue') this.#checkPartition(existing.name, config);
    const deliver = existing.config.deliver_subject;
    checkConsumerUpdate(existing.config, config, () =>
      deliver ? this.#host.client.hasInterest(deliver) : false,
    );
    existing.update(config);
    existing.store?.saveConfig(existing.name, JSON.stringify(config), existing.created);
    return existing;
  }

  /** A workqueue's consumers ack explicitly, start at the beginning, and share no subject. */
  #checkWorkQueue(config: ConsumerConfig): void {
    if (config.ack_policy !== 'explicit')
      throw ApiError.of(jsErrors.JSConsumerWQRequiresExplicitAckErr);
    if (this.#byName.size > 0) {
      if (configuredFilters(config).length === 0) {
        throw ApiError.of(jsErrors.JSConsumerWQMultipleUnfilteredErr);
      }
      this.#checkPartition(undefined, config);
    }
    if (config.deliver_policy !== 'all') {
      throw ApiError.of(jsErrors.JSConsumerWQConsumerNotDeliverAllErr);
    }
  }

  /**
   * No other consumer of a workqueue may take a subject this config's filters take
   * (nats-server 2.11 partitionUnique, stream.go:6047; an update checks it too, consumer.go:929).
   */
  #checkPartition(name: string | undefined, config: ConsumerConfig): void {
    const filters = configuredFilters(config);
    // nats-server checks each of the new filters: an update to no filter passes.
    if (filters.length === 0) return;
    for (const other of this.#byName.values()) {
      if (other.name !== name && other.filters.collides(filters)) {
        throw ApiError.of(jsErrors.JSConsumerWQConsumerNotUniqueErr);
      }
    }
  }

  #generateName(): string {
    for (;;) {
      let name = '';
      for (let i = 0; i < GENERATED_NAME_LENGTH; i++)
        name += NAME_CHARS[randomInt(NAME_CHARS.length)];
      if (!this.#byName.has(name)) return name;
    }
  }

  delete(name: string): void {
    this.#remove(this.get(name));
  }

  /** Reopens the consumers the stream's store kept. */
  restore(): void {
    for (const saved of this.#stream.store.consumers?.list() ?? []) {
      try {
        const config = JSON.parse(saved.config) as ConsumerConfig;
        const consumer = new Consumer(
          this.#stream,
          this.#host,
          this,
          saved.name,
          config,
          saved.created,
          saved.state,
          this.#stream.store.consumers,
        );
        this.#byName.set(saved.name, consumer);
        consumer.start();
      } catch (error) {
        this.#host.logger.error(
          `JetStream could not restore consumer '${this.#stream.name} > ${saved.name}': ${(error as Error).message}`,
        );
      }
    }
  }

  /** The stream stored a message: the consumers it concerns look for work. */
  appended(subject: string): void {
    for (const consumer of this.#byName.values()) consumer.appended(subject);
  }

  /** Interest retention keeps a new message only when some consumer will want it. */
  interestedIn(subject: string): boolean {
    for (const consumer of this.#byName.values()) {
      if (consumer.filters.matches(subject)) return true;
    }
    return false;
  }

  /**
   * The stream's retention became interest (a 2.10 update): what no consumer still needs
   * goes, as nats-server's checkStateForInterestStream does for each consumer. Without
   * consumers nothing goes.
   */
  retentionBecameInterest(): void {
    if (this.#byName.size > 0) this.#dropUnwanted(this.#stream.store.state().firstSeq);
  }

  /**
   * The stream was purged (STREAM.PURGE, or a rollup), as nats-server 2.9.10 follows a purge
   * (stream.go purge): a purge without options concerns every consumer, one with options
   * only those whose filter takes its subject (none but the unfiltered for no subject). Those
   * move on to the first message left of the purged subject (of the stream, without one), or
   * past the stream's end when none is left, even if messages of other subjects remain.
   */
  purged(options: PurgeOptions): void {
    const { subject, seq, keep } = options;
    const whole = subject === undefined && seq === undefined && keep === undefined;
    const store = this.#stream.store;
    const state = store.state();
    const start = subject
      ? store.filteredState(state.firstSeq, subject).first || state.lastSeq + 1
      : state.firstSeq;
    for (const consumer of this.#byName.values()) {
      if (whole || consumer.filters.covers(subject ?? '')) consumer.purged(start);
    }
  }

  acked(from: Consumer, seqs: number[]): void {
    const retention = this.#stream.config.retention;
    const store = this.#stream.store;
    for (const seq of seqs) {
      if (retention === 'workqueue') {
        store.remove(seq);
        continue;
      }
      const message = this.#stream.load(seq);
      if (message && !this.#wanted(seq, message.subject, from)) store.remove(seq);
    }
  }

  /** A reset moves the consumer's floor either way: what no consumer needs now goes (interest). */
  wasReset(_consumer: Consumer): void {
    if (this.#stream.config.retention === 'interest') {
      this.#dropUnwanted(this.#stream.store.state().firstSeq);
    }
  }

  expired(consumer: Consumer): void {
    if (this.#byName.get(consumer.name) === consumer) this.#remove(consumer);
  }

  /** Writes every state change still waiting, into the store's current commit (a snapshot follows). */
  saveStates(): void {
    for (const consumer of this.#byName.values()) consumer.saveState();
  }

  /** Stops every consumer (the stream closes). */
  close(): void {
    for (const consumer of this.#byName.values()) consumer.stop(false);
    this.#byName.clear();
  }

  /**
   * Stops every consumer as deleted (the stream is deleted), each announced by its
   * CONSUMER.DELETED advisory before the stream's own, as nats-server 2.9.10's stream stop does.
   */
  deleteAll(): void {
    for (const consumer of this.#byName.values()) this.#stopDeleted(consumer);
    this.#byName.clear();
  }

  #wanted(seq: number, subject: string, except?: Consumer): boolean {
    for (const consumer of this.#byName.values()) {
      if (consumer !== except && consumer.needsAck(seq, subject)) return true;
    }
    return false;
  }

  #remove(consumer: Consumer): void {
    this.#stopDeleted(consumer);
    this.#byName.delete(consumer.name);
    consumer.store?.remove(consumer.name);
    if (this.#stream.config.retention === 'interest') this.#dropUnwanted(consumer.ackFloor + 1);
  }

  /** Announces a consumer deleted, then stops it (its waiting pull requests get their 409). */
  #stopDeleted(consumer: Consumer): void {
    consumer.events.deleted();
    consumer.stop(true);
  }

  /** Interest retention: messages from `from` on that no remaining consumer needs go. */
  #dropUnwanted(from: number): void {
    const store = this.#stream.store;
    const doomed: number[] = [];
    for (let seq = from; ; seq++) {
      const message = store.loadNext('', seq);
      if (!message) break;
      seq = message.seq;
      if (!this.#wanted(seq, message.subject)) doomed.push(seq);
    }
    for (const seq of doomed) store.remove(seq);
  }
}
