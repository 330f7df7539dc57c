/** $JS.API.INFO and the cluster operations a standalone server answers with an error. */
import { ApiError, jsErrors } from '@slipstream/jsapi';
import { apiStatsLevel } from '../../api-level.js';
import type { ApiRoute } from './route.js';

export const accountInfo: ApiRoute<'accountInfo'> = {
  type: 'account_info_response',
  handle: ({ js, account }) => {
    const { memory, storage } = account.usage();
    const domain = js.options.domain;
    return {
      memory,
      storage,
      streams: account.streams.size,
      consumers: [...account.streams.values()].reduce((n, s) => n + s.consumers.count, 0),
      limits: {
        max_memory: account.limits.maxMemory,
        max_storage: account.limits.maxFile,
        max_streams: account.limits.maxStreams,
        max_consumers: account.limits.maxConsumers,
        max_ack_pending: -1,
        memory_max_stream_bytes: -1,
        storage_max_stream_bytes: -1,
        max_bytes_required: false,
      },
      // After the limits, as nats-server 2.9.10 writes it (JetStreamAccountStats).
      ...(domain ? { domain } : {}),
      // nats-server counts a request after answering it.
      api: { ...apiStatsLevel(), total: account.api.total - 1, errors: account.api.errors },
    };
  },
};

const clusteringRequired = () => {
  throw ApiError.of(jsErrors.JSClusterRequiredErr);
};

export const streamLeaderStepdown: ApiRoute<'streamLeaderStepdown'> = {
  type: 'stream_leader_stepdown_response',
  handle: ({ account, params }) => {
    account.stream(params.stream!);
    return clusteringRequired();
  },
};

export const streamPeerRemove: ApiRoute<'streamPeerRemove'> = {
  type: 'stream_remove_peer_response',
  handle: ({ account, params }) => {
    account.stream(params.stream!);
    return clusteringRequired();
  },
};
