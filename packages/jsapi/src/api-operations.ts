import type * as z from 'zod';
import {
  accountInfoResponseSchema,
  accountPurgeResponseSchema,
  metaLeaderStepdownResponseSchema,
  metaRescueRequestSchema,
  metaRescueResponseSchema,
  metaServerRemoveResponseSchema,
  serverRemoveRequestSchema,
  streamMoveRequestSchema,
} from './account-api.js';
import {
  consumerCreateRequestSchema,
  consumerCreateResponseSchema,
  consumerDeleteResponseSchema,
  consumerInfoResponseSchema,
  consumerLeaderStepdownResponseSchema,
  consumerListResponseSchema,
  consumerNamesRequestSchema,
  consumerNamesResponseSchema,
  consumerPauseRequestSchema,
  consumerPauseResponseSchema,
  consumerResetRequestSchema,
  consumerResetResponseSchema,
  consumerUnpinRequestSchema,
  consumerUnpinResponseSchema,
} from './consumer-api.js';
import { pullRequestSchema } from './pull-request.js';
import { msgGetRequestSchema } from './stored-message.js';
import {
  leaderStepdownRequestSchema,
  streamCreateRequestSchema,
  streamCreateResponseSchema,
  streamDeleteResponseSchema,
  streamInfoRequestSchema,
  streamInfoResponseSchema,
  streamLeaderStepdownResponseSchema,
  streamListResponseSchema,
  streamMsgDeleteRequestSchema,
  streamMsgDeleteResponseSchema,
  streamMsgGetResponseSchema,
  streamNamesRequestSchema,
  streamNamesResponseSchema,
  streamPeerRemoveRequestSchema,
  streamPurgeRequestSchema,
  streamPurgeResponseSchema,
  streamRemovePeerResponseSchema,
  streamRestoreRequestSchema,
  streamRestoreResponseSchema,
  streamSnapshotRequestSchema,
  streamSnapshotResponseSchema,
  streamUpdateResponseSchema,
} from './stream-api.js';
import {
  streamTemplateConfigSchema,
  streamTemplateCreateResponseSchema,
  streamTemplateDeleteResponseSchema,
  streamTemplateInfoResponseSchema,
  streamTemplateNamesRequestSchema,
  streamTemplateNamesResponseSchema,
} from './stream-template-api.js';
import type { ApiOperationName } from './subjects.js';

/**
 * How the server treats the request body:
 * - `none`: must be empty (a body is rejected with 10038),
 * - `ignored`: anything goes, nothing is read,
 * - `optional`: may be empty; otherwise the request schema applies,
 * - `required`: must not be empty (an empty body or `{}` is a bad request, 10003),
 * - `json`: always decoded (an empty body is invalid JSON, 10025).
 */
export type PayloadRule = 'none' | 'ignored' | 'optional' | 'required' | 'json';

/** One `$JS.API` operation: its body rule and the schemas of its request and response. */
export interface ApiOperation {
  payload: PayloadRule;
  /** undefined when the request has no body. */
  request: z.ZodType | undefined;
  /** undefined when the reply is not JSON (pull and direct get reply with messages). */
  response: z.ZodType | undefined;
}

const op = <Req extends z.ZodType | undefined, Res extends z.ZodType | undefined>(
  payload: PayloadRule,
  request: Req,
  response: Res,
) => ({ payload, request, response });

/** Every operation of `apiSubjectPatterns`, with its schemas. */
export const apiOperations = {
  accountInfo: op('ignored', undefined, accountInfoResponseSchema),
  streamCreate: op('json', streamCreateRequestSchema, streamCreateResponseSchema),
  streamUpdate: op('json', streamCreateRequestSchema, streamUpdateResponseSchema),
  streamNames: op('optional', streamNamesRequestSchema, streamNamesResponseSchema),
  streamList: op('optional', streamNamesRequestSchema, streamListResponseSchema),
  streamInfo: op('optional', streamInfoRequestSchema, streamInfoResponseSchema),
  streamDelete: op('none', undefined, streamDeleteResponseSchema),
  streamPurge: op('optional', streamPurgeRequestSchema, streamPurgeResponseSchema),
  streamMsgDelete: op('required', streamMsgDeleteRequestSchema, streamMsgDeleteResponseSchema),
  streamMsgGet: op('required', msgGetRequestSchema, streamMsgGetResponseSchema),
  streamSnapshot: op('required', streamSnapshotRequestSchema, streamSnapshotResponseSchema),
  streamRestore: op('required', streamRestoreRequestSchema, streamRestoreResponseSchema),
  streamLeaderStepdown: op(
    'optional',
    leaderStepdownRequestSchema,
    streamLeaderStepdownResponseSchema,
  ),
  streamPeerRemove: op('required', streamPeerRemoveRequestSchema, streamRemovePeerResponseSchema),
  streamPeerEvacuate: op('required', streamPeerRemoveRequestSchema, streamRemovePeerResponseSchema),
  streamCancelMove: op('none', undefined, streamUpdateResponseSchema),
  streamTemplateCreate: op('json', streamTemplateConfigSchema, streamTemplateCreateResponseSchema),
  streamTemplateDelete: op('none', undefined, streamTemplateDeleteResponseSchema),
  streamTemplateInfo: op('none', undefined, streamTemplateInfoResponseSchema),
  streamTemplateNames: op(
    'optional',
    streamTemplateNamesRequestSchema,
    streamTemplateNamesResponseSchema,
  ),
  consumerCreateEphemeral: op('json', consumerCreateRequestSchema, consumerCreateResponseSchema),
  consumerCreate: op('json', consumerCreateRequestSchema, consumerCreateResponseSchema),
  consumerCreateFiltered: op('json', consumerCreateRequestSchema, consumerCreateResponseSchema),
  consumerDurableCreate: op('json', consumerCreateRequestSchema, consumerCreateResponseSchema),
  consumerNames: op('optional', consumerNamesRequestSchema, consumerNamesResponseSchema),
  consumerList: op('optional', consumerNamesRequestSchema, consumerListResponseSchema),
  consumerInfo: op('none', undefined, consumerInfoResponseSchema),
  consumerDelete: op('none', undefined, consumerDeleteResponseSchema),
  consumerPause: op('optional', consumerPauseRequestSchema, consumerPauseResponseSchema),
  consumerUnpin: op('optional', consumerUnpinRequestSchema, consumerUnpinResponseSchema),
  consumerReset: op('optional', consumerResetRequestSchema, consumerResetResponseSchema),
  consumerNext: op('optional', pullRequestSchema, undefined),
  consumerLeaderStepdown: op(
    'optional',
    leaderStepdownRequestSchema,
    consumerLeaderStepdownResponseSchema,
  ),
  directGet: op('required', msgGetRequestSchema, undefined),
  directGetLastBySubject: op('optional', msgGetRequestSchema, undefined),
  metaLeaderStepdown: op('optional', leaderStepdownRequestSchema, metaLeaderStepdownResponseSchema),
  metaRescue: op('required', metaRescueRequestSchema, metaRescueResponseSchema),
  serverRemove: op('required', serverRemoveRequestSchema, metaServerRemoveResponseSchema),
  serverEvacuate: op('required', serverRemoveRequestSchema, metaServerRemoveResponseSchema),
  accountPurge: op('ignored', undefined, accountPurgeResponseSchema),
  accountStreamMove: op('json', streamMoveRequestSchema, streamUpdateResponseSchema),
  accountStreamCancelMove: op('none', undefined, streamUpdateResponseSchema),
} satisfies Record<ApiOperationName, ApiOperation>;

type SchemaOutput<S> = S extends z.ZodType ? z.output<S> : undefined;

/** The parsed request body of an operation (undefined for operations without a body). */
export type ApiRequest<Op extends ApiOperationName> = SchemaOutput<
  (typeof apiOperations)[Op]['request']
>;

/** The parsed response of an operation (undefined when the reply is not JSON). */
export type ApiResponse<Op extends ApiOperationName> = SchemaOutput<
  (typeof apiOperations)[Op]['response']
>;
