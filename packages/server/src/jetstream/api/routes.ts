import { accountInfo, streamLeaderStepdown, streamPeerRemove } from './account-routes.js';
import {
  consumerCreate,
  consumerCreateEphemeral,
  consumerCreateFiltered,
  consumerDelete,
  consumerDurableCreate,
  consumerInfo,
  consumerLeaderStepdown,
  consumerList,
  consumerNames,
  consumerPause,
  consumerUnpin,
} from './consumer-routes.js';
import { streamMsgDelete, streamMsgGet } from './message-routes.js';
import type { ApiRoutes } from './route.js';
import { streamRestore, streamSnapshot } from './snapshot-routes.js';
import {
  streamCreate,
  streamDelete,
  streamInfoRoute,
  streamList,
  streamNames,
  streamPurge,
  streamUpdate,
} from './stream-routes.js';

/**
 * The operations this server answers. Direct gets are answered by the streams themselves
 * (they subscribe when allow_direct is set), pull requests by their consumers.
 */
export const apiRoutes: ApiRoutes = {
  accountInfo,
  streamCreate,
  streamUpdate,
  streamInfo: streamInfoRoute,
  streamDelete,
  streamNames,
  streamList,
  streamPurge,
  streamMsgGet,
  streamMsgDelete,
  streamSnapshot,
  streamRestore,
  streamLeaderStepdown,
  streamPeerRemove,
  consumerCreateEphemeral,
  consumerCreate,
  consumerCreateFiltered,
  consumerDurableCreate,
  consumerInfo,
  consumerDelete,
  consumerNames,
  consumerList,
  consumerLeaderStepdown,
  consumerPause,
  consumerUnpin,
};
