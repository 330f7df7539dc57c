import type { CloseReason } from '../errors.js';
import type { MonitoredConnection } from './monitored-connection.js';

export interface SubscriptionState {
  subject: string;
  queue: string | undefined;
  sid: string;
  msgs: number;
  max: number | undefined;
}

/** What /connz reports about a connection, open or closed. */
export interface ConnectionState {
  cid: number;
  ip: string;
  port: number;
  startedAt: number;
  lastActivity: number;
  stoppedAt: number | undefined;
  reason: CloseReason | undefined;
  rtt: number | undefined;
  pendingBytes: number;
  inMsgs: number;
  outMsgs: number;
  inBytes: number;
  outBytes: number;
  name: string;
  lang: string;
  version: string;
  user: string | undefined;
  account: string;
  tls: { version: string; cipherSuite: string } | undefined;
  subscriptions: SubscriptionState[];
}

/** A copy of the connection's state now (kept as is when the connection has closed). */
export function snapshotConnection(client: MonitoredConnection): ConnectionState {
  const subscriptions: SubscriptionState[] = [];
  for (const sub of client.subscriptions.values()) {
    subscriptions.push({
      subject: sub.subject,
      queue: sub.queue,
      sid: sub.sid,
      msgs: sub.delivered,
      max: sub.max,
    });
  }
  return {
    cid: client.cid,
    ip: client.ip,
    port: client.port,
    startedAt: client.startedAt,
    lastActivity: client.lastActivity,
    stoppedAt: client.stoppedAt,
    reason: client.closeReason,
    rtt: client.rtt,
    pendingBytes: client.closed ? 0 : client.outbound.pendingBytes,
    inMsgs: client.inMsgs,
    outMsgs: client.outMsgs,
    inBytes: client.inBytes,
    outBytes: client.outBytes,
    name: client.name,
    lang: client.lang,
    version: client.version,
    user: client.user,
    account: client.account.name,
    tls: client.tls,
    subscriptions,
  };
}
