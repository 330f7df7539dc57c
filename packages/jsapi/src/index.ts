export * from './account-api.js';
export * from './account-info.js';
export * from './ack-body.js';
export * from './ack-subject.js';
export * from './advisories.js';
export * from './api-error.js';
export * from './api-operations.js';
export {
  apiResponse,
  apiResponseType,
  type ClusterInfo,
  clusterInfoSchema,
  type PeerInfo,
  type Placement,
  peerInfoSchema,
  placementSchema,
} from './common.js';
export * from './consumer-api.js';
export * from './consumer-config.js';
export * from './consumer-info.js';
export * from './decode.js';
export { jsErrors } from './error-catalog.js';
export * from './json.js';
export * from './kv.js';
export * from './names.js';
export * from './object-store.js';
export * from './pub-ack.js';
export * from './pull-request.js';
export * from './stored-message.js';
export * from './stream-api.js';
export * from './stream-config.js';
export * from './stream-info.js';
export * from './stream-template-api.js';
export * from './subjects.js';
export * from './time.js';
