import { InvalidArgumentError } from '@slipstream/client';
import {
  jsErrors,
  type StreamConfig,
  type StreamInfo,
  type StreamInfoRequest,
} from '@slipstream/jsapi';
import type { ApiClient } from './api-client.js';
import { isMessageNotFound, StreamNotFoundError } from './errors.js';
import { requireStreamFeatures } from './features.js';
import { type Lister, PagedLister } from './lister.js';
import { checkStreamName } from './names.js';
import { type StoredMsg, StoredMsgImpl } from './stored-msg.js';

/** Which message `getMessage` reads: by sequence, the last on a subject, or the next one. */
export type MsgRequest =
  | { seq: number }
  | { last_by_subj: string }
  | { next_by_subj: string; seq?: number };

/**
 * What `purge` removes: everything (no options), only a subject (`filter`), everything below
 * a sequence (`seq`, exclusive) or all but the newest `keep`. `seq` and `keep` exclude each other.
 */
export type PurgeOpts =
  | { filter?: string; seq?: number; keep?: never }
  | { filter?: string; keep?: number; seq?: never };

export interface PurgeResponse {
  success: boolean;
  /** How many messages were removed. */
  purged: number;
}

export type StreamInfoRequestOptions = Omit<StreamInfoRequest, 'offset'>;

/** Stream management, with the method names of nats.js's `jsm.streams`. */
export interface StreamAPI {
  info(stream: string, options?: StreamInfoRequestOptions): Promise<StreamInfo>;
  add(config: StreamConfig): Promise<StreamInfo>;
  /** Changes the given fields; the rest of the current configuration is kept. */
  update(stream: string, config: Partial<StreamConfig>): Promise<StreamInfo>;
  purge(stream: string, options?: PurgeOpts): Promise<PurgeResponse>;
  delete(stream: string): Promise<boolean>;
  /** Every stream (or those with a subject overlapping `subject`), paged. */
  list(subject?: string): Lister<StreamInfo>;
  /** Removes one message; `erase` (the default) overwrites its bytes on disk too. */
  deleteMessage(stream: string, seq: number, erase?: boolean): Promise<boolean>;
  /** The message, or null when there is none (err_code 10037). */
  getMessage(stream: string, query: MsgRequest): Promise<StoredMsg | null>;
  /** The name of the one stream that captures `subject`; StreamNotFoundError otherwise. */
  find(subject: string): Promise<string>;
  names(subject?: string): Lister<string>;
}

const subjectFilter = (subject?: string) => (subject ? { subject } : {});

export class StreamAPIImpl implements StreamAPI {
  readonly #api: ApiClient;

  constructor(api: ApiClient) {
    this.#api = api;
  }

  async info(stream: string, options?: StreamInfoRequestOptions): Promise<StreamInfo> {
    return this.#api.call('streamInfo', { stream: checkStreamName(stream) }, options);
  }

  async add(config: StreamConfig): Promise<StreamInfo> {
    requireStreamFeatures(this.#api.nc, config);
    return this.#api.call('streamCreate', { stream: checkStreamName(config.name) }, config);
  }

  async update(stream: string, config: Partial<StreamConfig>): Promise<StreamInfo> {
    // only the fields changed: what the server already has it evidently knows
    requireStreamFeatures(this.#api.nc, config);
    const current = await this.info(stream);
    const merged = { ...current.config, ...config, name: stream };
    return this.#api.call('streamUpdate', { stream }, merged);
  }

  async purge(stream: string, options?: PurgeOpts): Promise<PurgeResponse> {
    if (options?.seq !== undefined && options.keep !== undefined) {
      throw new InvalidArgumentError('purge: seq and keep are mutually exclusive');
    }
    return this.#api.call('streamPurge', { stream: checkStreamName(stream) }, options);
  }

  async delete(stream: string): Promise<boolean> {
    const reply = await this.#api.call('streamDelete', { stream: checkStreamName(stream) });
    return reply.success;
  }

  list(subject?: string): Lister<StreamInfo> {
    return new PagedLister(async (offset) => {
      const page = await this.#api.call('streamList', {}, { offset, ...subjectFilter(subject) });
      return { total: page.total, items: page.streams ?? [] };
    });
  }

  async deleteMessage(stream: string, seq: number, erase = true): Promise<boolean> {
    const request = erase ? { seq } : { seq, no_erase: true };
    const reply = await this.#api.call(
      'streamMsgDelete',
      { stream: checkStreamName(stream) },
      request,
    );
    return reply.success;
  }

  async getMessage(stream: string, query: MsgRequest): Promise<StoredMsg | null> {
    try {
      const reply = await this.#api.call(
        'streamMsgGet',
        { stream: checkStreamName(stream) },
        query,
      );
      return new StoredMsgImpl(reply.message);
    } catch (error) {
      if (isMessageNotFound(error)) return null;
      throw error;
    }
  }

  async find(subject: string): Promise<string> {
    const reply = await this.#api.call('streamNames', {}, { subject });
    const names = reply.streams ?? [];
    if (names.length !== 1) {
      const { code, err_code } = jsErrors.JSStreamNotFoundErr;
      throw new StreamNotFoundError({
        code,
        err_code,
        description: `no stream matches subject '${subject}'`,
      });
    }
    return names[0]!;
  }

  names(subject?: string): Lister<string> {
    return new PagedLister(async (offset) => {
      const page = await this.#api.call('streamNames', {}, { offset, ...subjectFilter(subject) });
      return { total: page.total, items: page.streams ?? [] };
    });
  }
}
