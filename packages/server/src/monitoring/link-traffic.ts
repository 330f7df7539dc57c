import type { LinkTrafficView } from '../interserver/link-view.js';

/**
 * The counters of a route or leaf connection as /routez and /leafz write them; `subs=1` lists
 * the subjects too, when there are any.
 */
export function linkTraffic(view: LinkTrafficView, listSubscriptions: boolean | undefined) {
  return {
    in_msgs: view.inMsgs,
    out_msgs: view.outMsgs,
    in_bytes: view.inBytes,
    out_bytes: view.outBytes,
    subscriptions: view.subscriptionCount,
    ...(listSubscriptions && view.subjects.length > 0 ? { subscriptions_list: view.subjects } : {}),
  };
}
