import type { Accounts } from '../accounts/accounts.js';
import { DEFAULT_RESPONSE_THRESHOLD } from '../accounts/service-responses.js';

const JS_ALL_API = '$JS.API.>';

/**
 * nats-server's mixed mode (v2.9.10 server.go Start, jetstream.go
 * enableAllJetStreamServiceImportsAndMappings): a cluster member without JetStream imports
 * `$JS.API.>` from the system account into each account JetStream is configured for (`$G` when
 * no accounts are), so a client's request crosses the routes in the system account to the
 * members that run JetStream, marked with its account (Nats-Request-Info), and the answer comes
 * back to the import's reply subject the same way.
 */
export function importClusterJetStream(accounts: Accounts, cluster: string): void {
  for (const name of accounts.jetStream.keys()) {
    const account = accounts.get(name);
    if (!account || account === accounts.system) continue;
    account.importService(
      accounts.system,
      JS_ALL_API,
      JS_ALL_API,
      { type: 'singleton', threshold: DEFAULT_RESPONSE_THRESHOLD },
      undefined,
      // The request names our cluster, where JetStream places a stream the request does not place.
      { serverId: accounts.serverId, cluster },
    );
  }
}
