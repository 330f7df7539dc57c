import type { connect } from '@nats-io/transport-node';

/** A connection of the official client (@nats-io/transport-node). */
export type OfficialConnection = Awaited<ReturnType<typeof connect>>;
