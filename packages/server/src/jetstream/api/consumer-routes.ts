/**
 * CONSUMER.CREATE in its four subject forms, INFO, DELETE, NAMES, LIST, PAUSE, UNPIN and
 * LEADER.STEPDOWN.
 * MSG.NEXT has no route: each pull consumer subscribes to its own next subject.
 */
import {
  ApiError,
  type ApiOperationName,
  type ConsumerCreateRequest,
  jsErrors,
  ZERO_TIME,
} from '@slipstream/jsapi';
import type { Consumer } from '../consumer/consumer.js';
import { withServerConsumerLevel } from '../consumer/consumer-api-level.js';
import { checkUnpinGroup } from '../consumer/consumer-config.js';
import { pauseDeadline } from '../consumer/consumer-pause.js';
import { wireTime } from '../shared/wire-time.js';
import type { ApiContext, ApiRoute } from './route.js';
import { page } from './route.js';

const NAMES_PAGE = 1024;
const LIST_PAGE = 256;

type CreateOperation =
  | 'consumerCreateEphemeral'
  | 'consumerCreate'
  | 'consumerCreateFiltered'
  | 'consumerDurableCreate';

/**
 * The checks nats-server's create handler makes on the subject and the request before it
 * looks at the stream, in its order; then the stream's consumers take over.
 */
function createConsumer(
  operation: CreateOperation,
  { account, params, request }: ApiContext<CreateOperation>,
) {
  const { stream_name, config: requested, action, pedantic } = request as ConsumerCreateRequest;
  const config = { ...requested };
  if (params.stream !== stream_name) throw ApiError.of(jsErrors.JSStreamMismatchErr);
  const name = params.consumer;
  if (name && /[/\\]/.test(name)) {
    throw ApiError.of(jsErrors.JSConsumerNameContainsPathSeparatorsErr);
  }
  if (operation === 'consumerDurableCreate') {
    if (!config.durable_name) throw ApiError.of(jsErrors.JSConsumerDurableNameNotSetErr);
    if (config.durable_name !== name) {
      throw ApiError.of(jsErrors.JSConsumerDurableNameNotMatchSubjectErr);
    }
  } else if (name) {
    if (config.durable_name && config.durable_name !== name) {
      throw ApiError.of(jsErrors.JSConsumerDurableNameNotMatchSubjectErr);
    }
    config.name = name;
  } else if (config.durable_name) {
    throw ApiError.of(jsErrors.JSConsumerEphemeralWithDurableNameErr);
  }
  // The subject's filter names one; a config with several may not use it (2.10 jetstream_api.go:3854).
  if (params.filter && (config.filter_subjects?.length ?? 0) > 0) {
    throw ApiError.of(jsErrors.JSConsumerMultipleFiltersNotAllowed);
  }
  if (params.filter && config.filter_subject !== params.filter) {
    throw ApiError.of(jsErrors.JSConsumerCreateFilterSubjectMismatchErr);
  }
  if ((config.num_replicas ?? 0) > 1) throw ApiError.of(jsErrors.JSStreamReplicasNotSupportedErr);
  const stream = account.stream(stream_name);
  const consumer = stream.consumers.create(config, action, pedantic);
  const info = withServerConsumerLevel(consumer.info());
  if (!consumer.config.durable_name) return info;
  // A durable consumer is answered once its config is on disk, in every sync mode: one the
  // client was told exists must survive a power loss. An ephemeral one is answered at once, before
  // its first delivery, which is what a mirror or source waits for before it takes deliveries.
  return stream.store.whenSynced().then(() => info);
}

function createRoute<Op extends CreateOperation>(operation: Op): ApiRoute<Op> {
  return {
    type: 'consumer_create_response',
    handle: (context) => createConsumer(operation, context as ApiContext<CreateOperation>),
  };
}

export const consumerCreateEphemeral = createRoute('consumerCreateEphemeral');
export const consumerCreate = createRoute('consumerCreate');
export const consumerCreateFiltered = createRoute('consumerCreateFiltered');
export const consumerDurableCreate = createRoute('consumerDurableCreate');

function consumerOf({ account, params }: ApiContext<ApiOperationName>): Consumer {
  return account.stream(params.stream!).consumers.get(params.consumer!);
}

export const consumerInfo: ApiRoute<'consumerInfo'> = {
  type: 'consumer_info_response',
  handle: (context) => withServerConsumerLevel(consumerOf(context).info()),
};

export const consumerDelete: ApiRoute<'consumerDelete'> = {
  type: 'consumer_delete_response',
  handle: ({ account, params }) => {
    account.stream(params.stream!).consumers.delete(params.consumer!);
    return { success: true };
  },
};

const emptyListing = { total: 0, offset: 0, limit: 0, consumers: [] };

export const consumerNames: ApiRoute<'consumerNames'> = {
  type: 'consumer_names_response',
  errorFields: emptyListing,
  handle: ({ account, params, request }) => {
    const names = account
      .stream(params.stream!)
      .consumers.sorted()
      .map((c) => c.name);
    const { items, ...paging } = page(names, request?.offset, NAMES_PAGE);
    return { ...paging, consumers: items };
  },
};

export const consumerList: ApiRoute<'consumerList'> = {
  type: 'consumer_list_response',
  errorFields: emptyListing,
  handle: ({ account, params, request }) => {
    const consumers = account.stream(params.stream!).consumers.sorted();
    const { items, ...paging } = page(consumers, request?.offset, LIST_PAGE);
    return { ...paging, consumers: items.map((c) => c.info()) };
  },
};

/**
 * CONSUMER.PAUSE (2.11 jetstream_api.go:4927): pause until the body's pause_until, or resume
 * for none, Go's zero time or a time already past. The answer says whether it is paused and
 * until when; errors carry the same fields, zero.
 */
export const consumerPause: ApiRoute<'consumerPause'> = {
  type: 'consumer_pause_response',
  errorFields: { paused: false, pause_until: ZERO_TIME },
  handle: ({ account, params, request }) => {
    const deadline = pauseDeadline(request?.pause_until);
    const consumer = account.stream(params.stream!).consumers.pause(params.consumer!, deadline);
    const paused = consumer.paused;
    return {
      paused,
      pause_until: wireTime(deadline),
      ...(paused ? { pause_remaining: consumer.pauseRemaining } : {}),
    };
  },
};

/**
 * CONSUMER.UNPIN (2.11 jetstream_api.go:3472): the pin of a pinned_client group ends; the next
 * request without a pin id gets a new one.
 */
export const consumerUnpin: ApiRoute<'consumerUnpin'> = {
  type: 'consumer_unpin_response',
  handle: (context) => {
    const group = checkUnpinGroup(context.request?.group);
    consumerOf(context).unpin(group);
    return {};
  },
};

export const consumerLeaderStepdown: ApiRoute<'consumerLeaderStepdown'> = {
  type: 'consumer_leader_stepdown_response',
  handle: (context) => {
    consumerOf(context);
    throw ApiError.of(jsErrors.JSClusterRequiredErr);
  },
};
