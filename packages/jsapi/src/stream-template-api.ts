import * as z from 'zod';
import { apiResponse, int, pagedRequestShape, pagedShape, successShape } from './common.js';
import { streamConfigSchema } from './stream-config.js';

/**
 * Stream templates: present in nats-server 2.9.10, removed from newer servers. Kept so that
 * clients and tools can still talk to the servers that have them.
 */

export const streamTemplateConfigSchema = z.looseObject({
  name: z.string(),
  /** The config every created stream gets; its name is empty. */
  config: streamConfigSchema.extend({ name: z.string().optional() }),
  max_streams: int(),
});
export type StreamTemplateConfig = z.infer<typeof streamTemplateConfigSchema>;

export const streamTemplateNamesRequestSchema = z.looseObject(pagedRequestShape);

const templateInfoShape = {
  config: streamTemplateConfigSchema,
  streams: z.array(z.string()).nullable(),
};

export const streamTemplateCreateResponseSchema = apiResponse(
  'stream_template_create_response',
  templateInfoShape,
);
export const streamTemplateInfoResponseSchema = apiResponse(
  'stream_template_info_response',
  templateInfoShape,
);
export const streamTemplateDeleteResponseSchema = apiResponse(
  'stream_template_delete_response',
  successShape,
);
export const streamTemplateNamesResponseSchema = apiResponse('stream_template_names_response', {
  ...pagedShape,
  streams: z.array(z.string()).nullable(),
});
