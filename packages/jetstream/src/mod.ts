export type {
  AccountLimits,
  ConsumerConfig,
  ConsumerInfo,
  SequenceInfo,
  StreamConfig,
  StreamInfo,
  StreamSource,
  StreamState,
} from '@slipstream/jsapi';
export { type Advisory, AdvisoryKind } from './advisories.js';
export {
  type Batch,
  type BatchAck,
  BatchHeaders,
  type BatchMessageOptions,
  type BatchMessageOptionsWithReply,
} from './batch-publish.js';
export type {
  ConsumerAPI,
  ConsumerCreateOptions,
  ConsumerPauseResult,
  ConsumerResetResponse,
} from './consumer-api.js';
export type { ConsumerNotification, PullOptions } from './consumer-status.js';
export type { Consumers } from './consumers.js';
export type { ConsumerMessages } from './consumption.js';
export {
  type Counter,
  type CounterEntry,
  CounterHeaders,
  counterFromStream,
} from './counters.js';
export { DirectMsgHeaders, type DirectStreamAPI } from './direct-api.js';
export { jetstream, jetstreamManager } from './entry-points.js';
export {
  ConsumerNotFoundError,
  InvalidNameError,
  isMessageNotFound,
  JetStreamApiCodes,
  JetStreamApiError,
  JetStreamError,
  JetStreamNotEnabled,
  JetStreamStatusError,
  StreamNotFoundError,
} from './errors.js';
export { Feature, serverFeature } from './features.js';
export type {
  JetStreamAccountStats,
  JetStreamClient,
  JetStreamManager,
} from './jetstream-types.js';
export type { DeliveryInfo, JsMsg } from './jsmsg.js';
export type { Lister } from './lister.js';
export type { JetStreamManagerOptions, JetStreamOptions } from './options.js';
export type { OrderedConsumerOptions } from './ordered-consumer-cursor.js';
export type { OrderedPushConsumerOptions } from './ordered-consumer-push.js';
export {
  AckPolicy,
  DeliverPolicy,
  DiscardPolicy,
  PersistMode,
  ReplayPolicy,
  RetentionPolicy,
  StorageType,
  StoreCompression,
} from './policies.js';
export type { PubAck } from './pub-ack.js';
export type {
  PubAckFuture,
  PublishAsyncFailure,
  PublishAsyncOptions,
} from './publish-async.js';
export {
  type JetStreamPublishOptions,
  PubHeaders,
  type StreamExpectations,
} from './publish-headers.js';
export type {
  ConsumeOptions,
  Consumer,
  Expires,
  FetchOptions,
  NextOptions,
} from './pull-consumer.js';
export type {
  BoundPushConsumerOptions,
  ConsumerCallbackFn,
  PushConsumer,
  PushConsumerOptions,
} from './push-consumer.js';
export {
  type PredefinedSchedule,
  type ScheduleCancellation,
  type ScheduleOptions,
  type ScheduleSpec,
  scheduleSpecToHeader,
} from './schedule.js';
export type { StoredMsg } from './stored-msg.js';
export type {
  MsgRequest,
  PurgeOpts,
  PurgeResponse,
  StreamAPI,
  StreamInfoRequestOptions,
} from './stream-api.js';
