import * as z from 'zod';
import { accountInfoShape } from './account-info.js';
import { apiResponse, int, successShape } from './common.js';

/** Requests and responses of the account, meta-group and server level API calls. */

export const accountInfoResponseSchema = apiResponse('account_info_response', accountInfoShape);
export type AccountInfoResponse = z.infer<typeof accountInfoResponseSchema>;

/** SERVER.REMOVE / SERVER.EVACUATE body (system account). */
export const serverRemoveRequestSchema = z.looseObject({
  /** Server name. */
  peer: z.string().optional(),
  peer_id: z.string().optional(),
});
export type ServerRemoveRequest = z.infer<typeof serverRemoveRequestSchema>;

/** META.RESCUE body (newer servers, system account). */
export const metaRescueRequestSchema = z.looseObject({ quorum_needed: int() });
export type MetaRescueRequest = z.infer<typeof metaRescueRequestSchema>;

/** ACCOUNT.STREAM.MOVE body: where the stream should go. */
export const streamMoveRequestSchema = z.looseObject({
  server: z.string().optional(),
  cluster: z.string().optional(),
  domain: z.string().optional(),
  tags: z.array(z.string()).optional(),
});
export type StreamMoveRequest = z.infer<typeof streamMoveRequestSchema>;

export const metaLeaderStepdownResponseSchema = apiResponse(
  'meta_leader_stepdown_response',
  successShape,
);
export const metaServerRemoveResponseSchema = apiResponse(
  'meta_server_remove_response',
  successShape,
);
export const metaRescueResponseSchema = apiResponse('meta_rescue_response', {
  server: z.string(),
  server_id: z.string(),
  prev_quorum: int().optional(),
  new_quorum: int().optional(),
});
export const accountPurgeResponseSchema = apiResponse('account_purge_response', {
  initiated: z.boolean(),
});

export type MetaLeaderStepdownResponse = z.infer<typeof metaLeaderStepdownResponseSchema>;
export type MetaServerRemoveResponse = z.infer<typeof metaServerRemoveResponseSchema>;
export type MetaRescueResponse = z.infer<typeof metaRescueResponseSchema>;
export type AccountPurgeResponse = z.infer<typeof accountPurgeResponseSchema>;
