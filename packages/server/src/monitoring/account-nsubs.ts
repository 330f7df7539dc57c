/**
 * `$SYS.REQ.ACCOUNT.NSUBS`, as nats-server (2.9.10 and 2.11) answers it: the request
 * `{"acc", "subject", "queue"}` (the queue group as Go writes a []byte, base64) asks how many
 * client subscriptions of the account would take a message on the subject: for a literal
 * subject those matching it, for a wildcard one those it covers; with a queue only that group's
 * members, without it every subscription. The answer is the bare count; a request without a
 * body, one that does not decode, or for an account unknown or without connections here is left
 * unanswered (nats-server logs it).
 */
import { hasWildcard, isSubsetMatch, subjectMatches } from '@slipstream/protocol';
import type { MonitoredServer } from './monitored-server.js';

export const NSUBS_REQUEST = '$SYS.REQ.ACCOUNT.NSUBS';

/** The count the request `payload` asks for; undefined when nats-server would not answer. */
export function accountNumSubscriptions(
  server: MonitoredServer,
  payload: Uint8Array,
): number | undefined {
  const request = readRequest(payload);
  if (!request) return undefined;
  const account = server.accounts.get(request.acc);
  if (!account || account.connections === 0) return undefined;
  const wildcard = hasWildcard(request.subject);
  let count = 0;
  for (const sub of account.router.sublist.all()) {
    // Only clients' own subscriptions count, not the server's nor an import's.
    if (server.clients.get(sub.subscriber.cid) !== sub.subscriber) continue;
    const taken = wildcard
      ? isSubsetMatch(sub.subject, request.subject)
      : subjectMatches(request.subject, sub.subject);
    const inGroup = request.queue === undefined || sub.queue === request.queue;
    if (taken && inGroup) count++;
  }
  return count;
}

/** nats-server's accNumSubsReq, its queue decoded; undefined for what Go's decoding refuses. */
function readRequest(payload: Uint8Array) {
  if (payload.length === 0) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(payload).toString());
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return undefined;
  const { acc = '', subject = '', queue } = parsed as Record<string, unknown>;
  const strings = [acc, subject, queue].every(
    (v) => v === undefined || v === null || typeof v === 'string',
  );
  if (!strings) return undefined;
  return {
    acc: (acc ?? '') as string,
    subject: (subject ?? '') as string,
    queue: typeof queue === 'string' ? Buffer.from(queue, 'base64').toString() : undefined,
  };
}
