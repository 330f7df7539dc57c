import type { Msg, NatsConnection } from '@slipstream/client';
import {
  decodeJson,
  describeIssues,
  JS_ADVISORY_PREFIX,
  jsEventSchemaForType,
} from '@slipstream/jsapi';
import { JetStreamError } from './errors.js';

/** The kinds of advisory nats.js v3 names; others come with their own last type token. */
export const AdvisoryKind = {
  API: 'api_audit',
  StreamAction: 'stream_action',
  ConsumerAction: 'consumer_action',
  SnapshotCreate: 'snapshot_create',
  SnapshotComplete: 'snapshot_complete',
  RestoreCreate: 'restore_create',
  RestoreComplete: 'restore_complete',
  MaxDeliver: 'max_deliver',
  Terminated: 'terminated',
  Ack: 'consumer_ack',
  StreamLeaderElected: 'stream_leader_elected',
  StreamQuorumLost: 'stream_quorum_lost',
  ConsumerLeaderElected: 'consumer_leader_elected',
  ConsumerQuorumLost: 'consumer_quorum_lost',
} as const;
export type AdvisoryKind = (typeof AdvisoryKind)[keyof typeof AdvisoryKind];

/** A JetStream event: `kind` is the last token of its `type` (`io.nats.jetstream.advisory.v1.<kind>`). */
export interface Advisory {
  kind: AdvisoryKind | (string & {});
  /** The event, checked against its jsapi schema when the type is one jsapi knows. */
  data: unknown;
}

/**
 * The account's JetStream advisories (`$JS.EVENT.ADVISORY.>`) from this call on. The
 * subscription starts at once, so nothing is missed before the first `next()`; leaving the
 * loop unsubscribes. An advisory that fails its schema ends the iteration with the error.
 */
export function advisories(nc: NatsConnection): AsyncIterable<Advisory> {
  const sub = nc.subscribe(`${JS_ADVISORY_PREFIX}.>`);
  return (async function* () {
    try {
      for await (const msg of sub) yield parseAdvisory(msg);
    } finally {
      sub.unsubscribe();
    }
  })();
}

function parseAdvisory(msg: Msg): Advisory {
  let json: { type?: unknown };
  try {
    json = msg.json();
  } catch (error) {
    throw new JetStreamError(`advisory on '${msg.subject}' is not JSON`, { cause: error });
  }
  const type = typeof json?.type === 'string' ? json.type : '';
  const schema = jsEventSchemaForType(type);
  if (!schema) return { kind: type.split('.').at(-1) ?? '', data: json };
  const decoded = decodeJson(schema, msg.data);
  if (!decoded.ok) {
    throw new JetStreamError(`invalid advisory '${type}': ${describeIssues(decoded.issues)}`, {
      cause: decoded.error,
    });
  }
  return { kind: type.split('.').at(-1)!, data: decoded.value };
}
