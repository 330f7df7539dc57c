/**
 * Raw JetStream API requests for the consumer feature tests (2.10 and 2.11 features, which the
 * official client only sends to a server advertising that version): streams, consumers, info,
 * no_wait pulls, over one ConsumerWire.
 */
import { afterEach, beforeEach, expect } from 'vitest';
import { type ConsumerTarget, ConsumerWire, startOurs } from './jetstream-consumer-wire.js';

export type Answer = Record<string, unknown>;

export interface ApiErrorBody {
  code: number;
  err_code: number;
  description: string;
}

export function errorOf(answer: Answer): ApiErrorBody | undefined {
  return answer.error as ApiErrorBody | undefined;
}

export function configOf(answer: Answer): Record<string, unknown> {
  return answer.config as Record<string, unknown>;
}

/**
 * Starts our server on a fresh store before each test and stops it after; `connected` gets the
 * test's connection and its requests.
 */
export function useOurServer(connected: (wire: ConsumerWire, js: ConsumerRequests) => void): void {
  let target: ConsumerTarget;
  let wire: ConsumerWire;
  beforeEach(async () => {
    target = await startOurs();
    wire = await ConsumerWire.connect(target.port);
    connected(wire, new ConsumerRequests(wire));
  });
  afterEach(async () => {
    wire.close();
    await target.stop();
  });
}

export class ConsumerRequests {
  constructor(private readonly wire: ConsumerWire) {}

  /** Creates a stream (which must succeed) and publishes `m1`, `m2`... to the subjects given. */
  async stream(config: Answer, publish: string[] = []): Promise<void> {
    const created = await this.wire.request(`$JS.API.STREAM.CREATE.${config.name}`, config);
    expect(created.error).toBeUndefined();
    await this.publish(publish);
  }

  /** Publishes `m<first>`, `m<first+1>`... to the subjects, waiting for each PubAck. */
  async publish(subjects: string[], first = 1): Promise<void> {
    for (const [i, subject] of subjects.entries()) {
      await this.wire.request(subject, `m${first + i}`);
    }
  }

  consumer(
    stream: string,
    config: Answer,
    subject = `$JS.API.CONSUMER.CREATE.${stream}.${config.durable_name ?? config.name}`,
  ): Promise<Answer> {
    return this.wire.request(subject, { stream_name: stream, config });
  }

  info(stream: string, name: string): Promise<Answer> {
    return this.wire.request(`$JS.API.CONSUMER.INFO.${stream}.${name}`);
  }

  /**
   * One pull request of up to `batch` (no_wait unless `body` says otherwise), acking each
   * message: the delivered `subject:data`, up to the status that ends the request.
   */
  async pull(stream: string, name: string, batch: number, body: Answer = {}): Promise<string[]> {
    const wire = this.wire;
    const inbox = wire.inbox();
    wire.pub(
      `$JS.API.CONSUMER.MSG.NEXT.${stream}.${name}`,
      { batch, no_wait: true, expires: 1_000_000_000, ...body },
      inbox,
    );
    const got: string[] = [];
    for (let n = 1; ; n++) {
      const messages = await wire.received(inbox, n, 3_000);
      if (messages.length < n) return got;
      const last = messages[n - 1]!;
      if (last.headers?.startsWith('NATS/1.0 4')) return got;
      got.push(`${last.subject}:${last.data}`);
      if (last.reply) wire.pub(last.reply, '+ACK');
    }
  }
}
