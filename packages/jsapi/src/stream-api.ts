import * as z from 'zod';
import {
  apiResponse,
  int,
  listShape,
  pagedRequestShape,
  pagedShape,
  placementSchema,
  successShape,
  uint,
} from './common.js';
import { storedMessageSchema } from './stored-message.js';
import { streamConfigSchema } from './stream-config.js';
import { streamInfoSchema, streamInfoShape, streamStateSchema } from './stream-info.js';

/** Requests and responses of the `$JS.API.STREAM.*` family. */

/** STREAM.CREATE / STREAM.UPDATE body: the config, plus `pedantic` (no silent defaulting). */
export const streamCreateRequestSchema = streamConfigSchema.extend({
  // Missing is Go's empty string: the server then refuses the name, not the JSON.
  name: z.string().default(''),
  pedantic: z.boolean().optional(),
});
export type StreamCreateRequest = z.infer<typeof streamCreateRequestSchema>;

/** STREAM.NAMES / STREAM.LIST body: page offset and a subject the streams must overlap. */
export const streamNamesRequestSchema = z.looseObject({
  ...pagedRequestShape,
  subject: z.string().optional(),
});
export type StreamNamesRequest = z.infer<typeof streamNamesRequestSchema>;

/** STREAM.INFO body: ask for deleted sequences and/or per-subject counts. */
export const streamInfoRequestSchema = z.looseObject({
  ...pagedRequestShape,
  deleted_details: z.boolean().optional(),
  subjects_filter: z.string().optional(),
});
export type StreamInfoRequest = z.infer<typeof streamInfoRequestSchema>;

/** STREAM.PURGE body: `seq` purges below it, `keep` keeps the newest N (not both). */
export const streamPurgeRequestSchema = z.looseObject({
  filter: z.string().optional(),
  seq: uint().optional(),
  keep: uint().optional(),
});
export type StreamPurgeRequest = z.infer<typeof streamPurgeRequestSchema>;

export const streamMsgDeleteRequestSchema = z.looseObject({
  /** Required; a request without one is answered 400 bad request, as nats-server does. */
  seq: uint().optional(),
  /** Skip overwriting the message with random data. */
  no_erase: z.boolean().optional(),
});
export type StreamMsgDeleteRequest = z.infer<typeof streamMsgDeleteRequestSchema>;

export const streamSnapshotRequestSchema = z.looseObject({
  deliver_subject: z.string(),
  no_consumers: z.boolean().optional(),
  chunk_size: int().optional(),
  window_size: int().optional(),
  /** Check the snapshot's integrity first. */
  jsck: z.boolean().optional(),
});
export type StreamSnapshotRequest = z.infer<typeof streamSnapshotRequestSchema>;

export const streamRestoreRequestSchema = z.looseObject({
  config: streamConfigSchema,
  state: streamStateSchema,
});
export type StreamRestoreRequest = z.infer<typeof streamRestoreRequestSchema>;

/** STREAM/CONSUMER/META LEADER.STEPDOWN body: where the new leader should be (newer servers). */
export const leaderStepdownRequestSchema = z.looseObject({
  placement: placementSchema.optional(),
});
export type LeaderStepdownRequest = z.infer<typeof leaderStepdownRequestSchema>;

/** STREAM.PEER.REMOVE / PEER.EVACUATE body: the server name of the peer. */
export const streamPeerRemoveRequestSchema = z.looseObject({ peer: z.string() });
export type StreamPeerRemoveRequest = z.infer<typeof streamPeerRemoveRequestSchema>;

export const streamCreateResponseSchema = apiResponse('stream_create_response', {
  ...streamInfoShape,
  did_create: z.boolean().optional(),
});
export const streamUpdateResponseSchema = apiResponse('stream_update_response', streamInfoShape);
export const streamInfoResponseSchema = apiResponse('stream_info_response', {
  ...streamInfoShape,
  ...pagedShape,
});
export const streamNamesResponseSchema = apiResponse('stream_names_response', {
  ...pagedShape,
  /** null (Go's nil slice) when there are no streams. */
  streams: z.array(z.string()).nullable(),
});
export const streamListResponseSchema = apiResponse('stream_list_response', {
  ...listShape,
  streams: z.array(streamInfoSchema).nullable(),
});
export const streamDeleteResponseSchema = apiResponse('stream_delete_response', successShape);
export const streamPurgeResponseSchema = apiResponse('stream_purge_response', {
  ...successShape,
  purged: uint(),
});
export const streamMsgDeleteResponseSchema = apiResponse(
  'stream_msg_delete_response',
  successShape,
);
export const streamMsgGetResponseSchema = apiResponse('stream_msg_get_response', {
  message: storedMessageSchema,
});
export const streamSnapshotResponseSchema = apiResponse('stream_snapshot_response', {
  config: streamConfigSchema,
  state: streamStateSchema,
});
export const streamRestoreResponseSchema = apiResponse('stream_restore_response', {
  /** Where the client sends the snapshot chunks; an empty message ends the upload. */
  deliver_subject: z.string(),
});
export const streamLeaderStepdownResponseSchema = apiResponse(
  'stream_leader_stepdown_response',
  successShape,
);
export const streamRemovePeerResponseSchema = apiResponse(
  'stream_remove_peer_response',
  successShape,
);

export type StreamCreateResponse = z.infer<typeof streamCreateResponseSchema>;
export type StreamUpdateResponse = z.infer<typeof streamUpdateResponseSchema>;
export type StreamInfoResponse = z.infer<typeof streamInfoResponseSchema>;
export type StreamNamesResponse = z.infer<typeof streamNamesResponseSchema>;
export type StreamListResponse = z.infer<typeof streamListResponseSchema>;
export type StreamDeleteResponse = z.infer<typeof streamDeleteResponseSchema>;
export type StreamPurgeResponse = z.infer<typeof streamPurgeResponseSchema>;
export type StreamMsgDeleteResponse = z.infer<typeof streamMsgDeleteResponseSchema>;
export type StreamMsgGetResponse = z.infer<typeof streamMsgGetResponseSchema>;
export type StreamSnapshotResponse = z.infer<typeof streamSnapshotResponseSchema>;
export type StreamRestoreResponse = z.infer<typeof streamRestoreResponseSchema>;
export type StreamLeaderStepdownResponse = z.infer<typeof streamLeaderStepdownResponseSchema>;
export type StreamRemovePeerResponse = z.infer<typeof streamRemovePeerResponseSchema>;
