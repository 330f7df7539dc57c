import { rfc3339 } from '../monitoring/format.js';
import type { Subscriber } from '../subscription.js';

/** What nats-server's ClientInfo shows of a client connection (ClientConnection has it all). */
interface DescribedClient extends Subscriber {
  readonly startedAt: number;
  readonly ip: string;
  readonly user: string | undefined;
  readonly name: string;
  readonly lang: string;
  readonly version: string;
}

function isDescribed(subscriber: Subscriber): subscriber is DescribedClient {
  return 'startedAt' in subscriber && 'ip' in subscriber;
}

/** A publisher's round-trip time in nanoseconds, as nats-server reports it; 0 when unknown. */
export function rttNanos(publisher: Subscriber): number {
  return publisher.rtt === undefined ? 0 : Math.round(publisher.rtt * 1e6);
}

/** What a detailed ClientInfo says of the server: its id, and its cluster when it has one. */
export interface ClientInfoServer {
  readonly serverId: string;
  readonly cluster?: string;
}

/**
 * nats-server's ClientInfo of a publisher in `account` (getClientInfo): its account and RTT,
 * and `detailed`, the connection's identity and the server's id too. A publisher that is no
 * client connection (an internal client, a bridge) is shown by its account alone. A cluster
 * member names its cluster in either (JetStream places a stream there when the request does not
 * say where).
 */
export function clientInfo(
  publisher: Subscriber,
  account: string,
  detailed: ClientInfoServer | undefined,
): Record<string, unknown> {
  const rtt = rttNanos(publisher);
  const rttField = rtt > 0 ? { rtt } : {};
  const cluster = detailed?.cluster === undefined ? {} : { cluster: detailed.cluster };
  if (!detailed || !isDescribed(publisher)) return { acc: account, ...rttField, ...cluster };
  return {
    ...cluster,
    start: rfc3339(publisher.startedAt),
    host: publisher.ip,
    id: publisher.cid,
    acc: account,
    ...(publisher.user ? { user: publisher.user } : {}),
    ...(publisher.name ? { name: publisher.name } : {}),
    ...(publisher.lang ? { lang: publisher.lang } : {}),
    ...(publisher.version ? { ver: publisher.version } : {}),
    ...rttField,
    server: detailed.serverId,
    kind: 'Client',
    client_type: 'nats',
  };
}
