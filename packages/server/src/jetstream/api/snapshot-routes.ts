/** STREAM.SNAPSHOT and STREAM.RESTORE: the requests that start a transfer (snapshot.ts, restore.ts). */
import { ApiError, jsErrors, type StreamConfig } from '@slipstream/jsapi';
import { isValidPublishSubject } from '@slipstream/protocol';
import { StreamRestore } from '../snapshot/restore.js';
import { DEFAULT_WINDOW_SIZE, StreamSnapshot } from '../snapshot/snapshot.js';
import { checkStreamCreate, wireStreamConfig } from '../stream/stream-config.js';
import type { ApiRoute } from './route.js';

export const streamSnapshot: ApiRoute<'streamSnapshot'> = {
  type: 'stream_snapshot_response',
  handle: async ({ js, account, params, request }) => {
    const stream = account.stream(params.stream!);
    const { deliver_subject, chunk_size, window_size, no_consumers, jsck } = request!;
    if (!isValidPublishSubject(deliver_subject)) {
      throw ApiError.of(jsErrors.JSSnapshotDeliverSubjectInvalidErr);
    }
    const snapshot = await StreamSnapshot.take(js, account, stream, {
      consumers: !no_consumers,
      check: jsck === true,
    });
    // The chunks follow this answer, as nats-server sends its response first.
    setImmediate(
      () =>
        void snapshot.send(
          deliver_subject,
          chunk_size ?? 0,
          window_size && window_size > 0 ? window_size : DEFAULT_WINDOW_SIZE,
        ),
    );
    return { config: wireStreamConfig(stream.config), state: snapshot.state };
  },
};

export const streamRestore: ApiRoute<'streamRestore'> = {
  type: 'stream_restore_response',
  errorFields: { deliver_subject: '' },
  handle: ({ js, account, params, request }) => {
    const requested = { ...request!.config } as StreamConfig;
    // As nats-server: a config without a name takes the subject's.
    if (!requested.name) requested.name = params.stream!;
    const config = checkStreamCreate(params.stream!, requested, account.lookup);
    // As nats-server: the account's limits first, then whether the stream exists.
    account.checkLimits(config);
    if (account.streams.has(config.name)) {
      throw ApiError.of(jsErrors.JSStreamNameExistRestoreFailedErr);
    }
    return { deliver_subject: new StreamRestore(js, account, config).deliverSubject };
  },
};
