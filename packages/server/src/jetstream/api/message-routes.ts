/** STREAM.MSG.GET and STREAM.MSG.DELETE. */
import { ApiError, jsErrors } from '@slipstream/jsapi';
import type { StoredMessage } from '../store/message-store.js';
import { StoreError } from '../store/message-store.js';
import { badMsgGetQuery, findMessage, wireStoredMessage } from '../stream/message-get.js';
import type { ApiRoute } from './route.js';

export const streamMsgGet: ApiRoute<'streamMsgGet'> = {
  type: 'stream_msg_get_response',
  handle: ({ account, params, request }) => {
    const query = request ?? {};
    if (badMsgGetQuery(query)) throw ApiError.of(jsErrors.JSBadRequestErr);
    const stream = account.stream(params.stream!);
    let message: StoredMessage | undefined;
    try {
      message = findMessage(stream, query);
    } catch (error) {
      if (error instanceof StoreError && error.code === 'corrupt') throw error;
      message = undefined;
    }
    if (!message) throw ApiError.of(jsErrors.JSNoMessageFoundErr);
    return { message: wireStoredMessage(message, query.no_hdr) };
  },
};

export const streamMsgDelete: ApiRoute<'streamMsgDelete'> = {
  type: 'stream_msg_delete_response',
  handle: ({ account, params, request }) => {
    const stream = account.stream(params.stream!);
    if (!request?.seq) throw ApiError.of(jsErrors.JSBadRequestErr);
    stream.deleteMessage(request.seq, !request.no_erase);
    return { success: true };
  },
};
