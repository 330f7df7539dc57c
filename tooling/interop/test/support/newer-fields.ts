/**
 * Fields nats-server 2.10 and 2.11 write that 2.9.10 did not (the info's `ts`, the stream
 * config's compression, consumer_limits, allow_msg_ttl and metadata, which 2.9.10 dropped, and
 * the API statistics' level): ours writes them, so they are left out of comparisons with
 * 2.9.10's answers.
 */
export const newerFields: ReadonlySet<string> = new Set([
  'ts',
  'compression',
  'consumer_limits',
  'allow_msg_ttl',
  'metadata',
  // The API level leading the JetStream API statistics (api.level).
  'level',
]);
