/** Who this server is in the events it sends (the identifying part of nats-server's ServerInfo). */
export interface ServerIdentity {
  /** `server_name`, or the server's id when none is configured. */
  readonly name: string;
  readonly host: string;
  readonly id: string;
  readonly jetstream: boolean;
}
