import type { NatsConnection, Payload } from '@slipstream/client';
import { decodeJson, describeIssues, pubAckSchema, responseError } from '@slipstream/jsapi';
import type { MsgHdrs } from '@slipstream/protocol';
import { ApiClient } from './api-client.js';
import { ConsumerAPIImpl } from './consumer-api.js';
import { fromApiError, JetStreamError } from './errors.js';
import type { JetStreamManager } from './manager.js';
import { type JetStreamOptions, resolveOptions } from './options.js';
import { publishHeaders, type StreamExpectations } from './publish-headers.js';
import { type Consumers, ConsumersImpl } from './pull-consumer.js';
import { retryingRequest } from './request.js';

/** The stream's answer to a stored publish. */
export interface PubAck {
  stream: string;
  seq: number;
  /** True when the Nats-Msg-Id was seen within the duplicate window: nothing new was stored. */
  duplicate: boolean;
  domain?: string;
}

export interface JetStreamPublishOptions {
  /** Nats-Msg-Id: a second publish with the same id within the duplicate window is dropped. */
  msgID: string;
  /** Milliseconds to wait for the PubAck (default: the client's timeout). */
  timeout: number;
  headers: MsgHdrs;
  expect: Partial<StreamExpectations>;
  /**
   * Attempts in all while nothing answers (no responders: a stream being created or
   * recovering); default 1. A timeout is never retried.
   */
  retries: number;
}

/** The JetStream client, shaped like nats.js's JetStreamClient. */
export interface JetStreamClient {
  /** Publishes into a stream and resolves with the stream's PubAck. */
  publish(
    subject: string,
    payload?: Payload,
    options?: Partial<JetStreamPublishOptions>,
  ): Promise<PubAck>;
  /** The consumers of the account's streams, to read from. */
  readonly consumers: Consumers;
  getOptions(): JetStreamOptions;
  jetstreamManager(checkAPI?: boolean): Promise<JetStreamManager>;
}

export class JetStreamClientImpl implements JetStreamClient {
  readonly consumers: Consumers;
  readonly #api: ApiClient;
  readonly #options: JetStreamOptions;
  readonly #openManager: (checkAPI?: boolean) => Promise<JetStreamManager>;

  constructor(
    nc: NatsConnection,
    options: JetStreamOptions,
    openManager: (checkAPI?: boolean) => Promise<JetStreamManager>,
  ) {
    this.#options = { ...options };
    this.#openManager = openManager;
    this.#api = new ApiClient(nc, resolveOptions(options));
    this.consumers = new ConsumersImpl(this.#api, new ConsumerAPIImpl(this.#api));
  }

  async publish(
    subject: string,
    payload: Payload = '',
    options: Partial<JetStreamPublishOptions> = {},
  ): Promise<PubAck> {
    const reply = await retryingRequest(this.#api.nc, subject, payload, {
      timeout: options.timeout ?? this.#api.options.timeout,
      headers: publishHeaders(options.headers, options.msgID, options.expect),
      retries: options.retries,
    });
    return decodePubAck(reply.data);
  }

  getOptions(): JetStreamOptions {
    return { ...this.#options };
  }

  jetstreamManager(checkAPI?: boolean): Promise<JetStreamManager> {
    return this.#openManager(checkAPI);
  }
}

/** Reads a PubAck with the jsapi schema; a failed publish (`error` set) is thrown. */
export function decodePubAck(data: Uint8Array): PubAck {
  const decoded = decodeJson(pubAckSchema, data);
  if (!decoded.ok) {
    throw new JetStreamError(`invalid PubAck: ${describeIssues(decoded.issues)}`, {
      cause: decoded.error,
    });
  }
  const error = responseError(decoded.value);
  if (error) throw fromApiError(error);
  const { stream, seq, duplicate, domain } = decoded.value;
  if (!stream || seq === undefined) throw new JetStreamError('invalid PubAck: no stream or seq');
  const ack: PubAck = { stream, seq, duplicate: duplicate ?? false };
  if (domain !== undefined) ack.domain = domain;
  return ack;
}
