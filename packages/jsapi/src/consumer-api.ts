import * as z from 'zod';
import {
  apiResponse,
  durationNanos,
  listShape,
  pagedRequestShape,
  pagedShape,
  successShape,
  timestamp,
  uint,
} from './common.js';
import { consumerConfigSchema } from './consumer-config.js';
import { consumerInfoSchema, consumerInfoShape } from './consumer-info.js';

/** Requests and responses of the `$JS.API.CONSUMER.*` family. */

/** `action` of a create request (newer servers): create only, update only, or either (""). */
export const consumerActionSchema = z.enum(['', 'create', 'update']);
export type ConsumerAction = z.infer<typeof consumerActionSchema>;

/** Body of every CONSUMER.CREATE form and of CONSUMER.DURABLE.CREATE. */
export const consumerCreateRequestSchema = z.looseObject({
  stream_name: z.string(),
  config: consumerConfigSchema,
  action: consumerActionSchema.optional(),
  pedantic: z.boolean().optional(),
});
export type ConsumerCreateRequest = z.infer<typeof consumerCreateRequestSchema>;

export const consumerNamesRequestSchema = z.looseObject(pagedRequestShape);
export type ConsumerNamesRequest = z.infer<typeof consumerNamesRequestSchema>;

/** CONSUMER.PAUSE body: pause until a time; empty or a past time resumes. */
export const consumerPauseRequestSchema = z.looseObject({
  pause_until: timestamp().optional(),
});
export type ConsumerPauseRequest = z.infer<typeof consumerPauseRequestSchema>;

/**
 * CONSUMER.UNPIN body: the priority group whose pinned client is released. The server answers
 * a missing group itself ("invalid JSON: consumer group not specified"), so it is optional here.
 */
export const consumerUnpinRequestSchema = z.looseObject({ group: z.string().optional() });
export type ConsumerUnpinRequest = z.infer<typeof consumerUnpinRequestSchema>;

/** CONSUMER.RESET body: the stream sequence to restart from; empty resets to the ack floor. */
export const consumerResetRequestSchema = z.looseObject({ seq: uint().optional() });
export type ConsumerResetRequest = z.infer<typeof consumerResetRequestSchema>;

export const consumerCreateResponseSchema = apiResponse(
  'consumer_create_response',
  consumerInfoShape,
);
export const consumerInfoResponseSchema = apiResponse('consumer_info_response', consumerInfoShape);
export const consumerNamesResponseSchema = apiResponse('consumer_names_response', {
  ...pagedShape,
  consumers: z.array(z.string()).nullable(),
});
export const consumerListResponseSchema = apiResponse('consumer_list_response', {
  ...listShape,
  consumers: z.array(consumerInfoSchema).nullable(),
});
export const consumerDeleteResponseSchema = apiResponse('consumer_delete_response', successShape);
export const consumerPauseResponseSchema = apiResponse('consumer_pause_response', {
  paused: z.boolean(),
  pause_until: timestamp(),
  pause_remaining: durationNanos().optional(),
});
export const consumerUnpinResponseSchema = apiResponse('consumer_unpin_response', {});
export const consumerResetResponseSchema = apiResponse('consumer_reset_response', {
  ...consumerInfoShape,
  reset_seq: uint(),
});
export const consumerLeaderStepdownResponseSchema = apiResponse(
  'consumer_leader_stepdown_response',
  successShape,
);

export type ConsumerCreateResponse = z.infer<typeof consumerCreateResponseSchema>;
export type ConsumerInfoResponse = z.infer<typeof consumerInfoResponseSchema>;
export type ConsumerNamesResponse = z.infer<typeof consumerNamesResponseSchema>;
export type ConsumerListResponse = z.infer<typeof consumerListResponseSchema>;
export type ConsumerDeleteResponse = z.infer<typeof consumerDeleteResponseSchema>;
export type ConsumerPauseResponse = z.infer<typeof consumerPauseResponseSchema>;
export type ConsumerUnpinResponse = z.infer<typeof consumerUnpinResponseSchema>;
export type ConsumerResetResponse = z.infer<typeof consumerResetResponseSchema>;
export type ConsumerLeaderStepdownResponse = z.infer<typeof consumerLeaderStepdownResponseSchema>;
