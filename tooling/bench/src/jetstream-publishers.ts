/**
 * The two JetStream publishers the benchmark drives the servers with. Both resolve a publish
 * with its PubAck and reject on a JetStream error, so a round counts only stored messages.
 */
import { jetstream } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import type { Client } from './jetstream-consume.js';

export interface JetStreamPublisher {
  /** Publishes one message with a reply subject; resolves once its PubAck arrived. */
  publish(subject: string, payload: Uint8Array): Promise<unknown>;
  close(): Promise<void>;
}

export type PublisherFactory = (url: string) => Promise<JetStreamPublisher>;

/** The official client as users run it: `jetstream(nc).publish` of @nats-io/jetstream. */
export const officialPublisher: PublisherFactory = async (url) => {
  const nc = await connect({ servers: url });
  const js = jetstream(nc);
  return { publish: (subject, payload) => js.publish(subject, payload), close: () => nc.close() };
};

/** Any JetStream client's own `jetstream(nc).publish`, such as @slipstream/jetstream's. */
export function jetstreamPublisher(client: Client): PublisherFactory {
  return async (url) => {
    const nc = await client.connect(url);
    const js = client.jetstream(nc);
    return { publish: (subject, payload) => js.publish(subject, payload), close: () => nc.close() };
  };
}

/** The part of @slipstream/client this benchmark drives (nats.js v3 names). */
export interface RawClient {
  connect(options: { servers: string }): Promise<RawConnection>;
}
interface RawConnection {
  publish(subject: string, payload: Uint8Array, options: { reply: string }): void;
  subscribe(
    subject: string,
    options: {
      callback: (error: Error | null, msg: { subject: string; data: Uint8Array }) => void;
    },
  ): unknown;
  flush(): Promise<void>;
  close(): Promise<void>;
}

interface Waiter {
  resolve(ack: unknown): void;
  reject(error: Error): void;
}

/**
 * @slipstream/client with no JetStream layer: a PUB with a reply subject of one wildcard inbox
 * per message, and one subscription that matches every PubAck to its publish. The client's own
 * cost stays small, so a server pinned to one core shows its capacity rather than the client's.
 */
export function rawPublisher(client: RawClient): PublisherFactory {
  return async (url) => {
    const nc = await client.connect({ servers: url });
    const inbox = `_INBOX.bench_${process.pid}_${Date.now()}`;
    const waiting = new Map<number, Waiter>();
    const decoder = new TextDecoder();
    let next = 0;
    nc.subscribe(`${inbox}.*`, {
      callback: (_error, msg) => {
        const id = Number(msg.subject.slice(inbox.length + 1));
        const waiter = waiting.get(id);
        if (!waiter) return;
        waiting.delete(id);
        const ack = JSON.parse(decoder.decode(msg.data)) as { seq?: number; error?: unknown };
        if (typeof ack.seq === 'number') waiter.resolve(ack);
        else waiter.reject(new Error(`not stored: ${decoder.decode(msg.data)}`));
      },
    });
    await nc.flush();
    return {
      publish: (subject, payload) =>
        new Promise((resolve, reject) => {
          const id = ++next;
          waiting.set(id, { resolve, reject });
          nc.publish(subject, payload, { reply: `${inbox}.${id}` });
        }),
      close: () => nc.close(),
    };
  };
}
