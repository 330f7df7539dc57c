/**
 * nats-server settings this server does not implement yet, and what it does about each. The rule:
 * a setting whose absence would let in clients, messages or connections the operator meant to keep
 * out (or would leave unopened a listener the operator counts on) is refused, so the server does
 * not start; one whose absence only changes logging, tuning or multi-server topology is warned
 * about and the server runs without it.
 */

const operatorKeys =
  'operator keys without operator JWTs are not supported yet: give operator JWTs';

/** Top-level config keys that stop the start, with the reason given. */
export const refusedKeys: Readonly<Record<string, string>> = {
  trusted: operatorKeys,
  trusted_keys: operatorKeys,
  mqtt: 'MQTT is not supported: no MQTT listener would open',
  max_sub_tokens: 'the subject token limit is not enforced yet: longer subjects would be accepted',
  ocsp: 'OCSP stapling is not supported yet: no certificate status would be stapled, and clients that require one would refuse the server',
};

const noGateways = 'this server joins no super-cluster';
const ignored = 'ignored';

/** Top-level config keys that are ignored with a warning. */
export const warnedKeys: Readonly<Record<string, string>> = {
  gateway: `${noGateways}: gateways are not supported`,
  client_advertise:
    "client_advertise is not supported yet: clients are told the client port's own addresses",
  connect_error_reports: `${ignored}: a route's failed attempts are logged at the first and every 60th`,
  reconnect_error_reports: `${ignored}: a route's failed attempts are logged at the first and every 60th`,
  no_system_account: `${ignored}: the system account ($SYS unless system_account names one) is always there`,
  syslog: 'syslog logging is not supported: logging goes to stderr or --log',
  remote_syslog: 'syslog logging is not supported: logging goes to stderr or --log',
  log_size_limit: 'log rotation is not supported',
  logfile_size_limit: 'log rotation is not supported',
  max_traced_msg_len: 'trace truncation is not supported',
  http_base_path: 'a monitoring base path is not supported yet: endpoints are served at /',
  max_closed_clients: `${ignored}: /connz?state=closed keeps the last 10,000 closed connections`,
  disable_sublist_cache: `${ignored}: the subscription match cache is always on`,
  no_header_support: `${ignored}: headers are always supported`,
  prof_port: 'profiling is not supported: no profiling port opens',
  ocsp_cache: `${ignored}: it caches the answers of tls ocsp_peer checks, which are not supported (refused)`,
};

/** How every refusal ends, in config errors and flag errors alike. */
export const refusingToStart = 'refusing to start rather than ignore it';
