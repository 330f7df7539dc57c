import type { PermissionsOptions, UserOptions } from '../auth/auth-options.js';
import type { MappingOptions } from './subject-mappings.js';

/** How a service answers a request, which decides how long its reply subject stays mapped. */
export type ResponseType = 'singleton' | 'stream' | 'chunked';

/**
 * Subjects an account lets other accounts import (nats-server's `exports` entries): a stream
 * (messages published here are delivered there) or a service (requests made there are answered
 * here). Without `accounts` any account may import it.
 */
export type ExportOptions =
  | { stream: string; accounts?: string[]; accountTokenPosition?: number }
  | {
      service: string;
      accounts?: string[];
      /**
       * 1-based position of a `*` in the subject that must hold the importing account's name:
       * account B may import `x.B` of an export `x.*` with position 2, and no other subject
       * (nats-server's `account_token_position`). It replaces `accounts`.
       */
      accountTokenPosition?: number;
      /**
       * Message traces (nats-server 2.11) of the importers' requests go on in this account;
       * without it they stop at the service import (`allow_trace`).
       */
      allowTrace?: boolean;
      /** Default `singleton`: the first response ends the request. */
      responseType?: ResponseType;
      /**
       * Milliseconds a `stream` or `chunked` request's reply subject stays mapped after its
       * last response. Default 2 minutes.
       */
      responseThreshold?: number;
      /**
       * Service latency tracking (nats-server's export `latency`): for the sampled share of
       * requests (percent, default 100, or `'headers'`: those whose trace headers ask, which
       * also decide for the requests a percentage leaves out) this account receives an
       * `io.nats.server.metric.v1.service_latency` message on `subject`. Singleton services only.
       */
      latency?: { subject: string; sampling?: number | 'headers' };
    };

/**
 * Subjects an account takes from another's exports (nats-server's `imports` entries). A stream
 * import delivers the exporter's `subject` here, under `prefix.<subject>` or under `to`; a
 * service import sends requests published here on `to` (default: `subject`) to the exporter's
 * `subject`, and the answers back to the requester's reply subject.
 */
export type ImportOptions =
  | {
      stream: { account: string; subject: string };
      prefix?: string;
      to?: string;
      /** Message traces (nats-server 2.11) follow the stream into this account (`allow_trace`). */
      allowTrace?: boolean;
    }
  | {
      service: { account: string; subject: string };
      to?: string;
      /**
       * Share the requester's details with the exporter (nats-server's import `share`): its
       * requests' Nats-Request-Info header and latency reports describe the client in full,
       * not just its account and round-trip time.
       */
      share?: boolean;
    };

/** An account's JetStream limits (-1 or absent: unlimited), as its `jetstream {}` block. */
export interface AccountJetStreamOptions {
  maxMemory?: number;
  maxFile?: number;
  maxStreams?: number;
  maxConsumers?: number;
}

/** Limits on an account's clients (nats-server's account `limits {}`); 0 or absent: none. */
export interface AccountLimitsOptions {
  /** Clients logged in to the account at once; one more is refused. */
  maxConnections?: number;
  /** Subscriptions per client of the account (the lower of this and the server's). */
  maxSubscriptions?: number;
}

/** One account of nats-server's `accounts {}` block: its users and what it shares. */
export interface AccountOptions {
  /**
   * The account's public nkey (`A…`), as nats-server's account `nkey`: checked, and otherwise
   * unused, as by nats-server 2.9.10 outside operator mode.
   */
  nkey?: string;
  /** Where publishes to its subjects go instead, by source subject (nats-server's `mappings`). */
  mappings?: Record<string, MappingOptions>;
  /** Users who log in to this account (names and nkeys are unique across all accounts). */
  users?: UserOptions[];
  /** Permissions of this account's users that have none of their own. */
  defaultPermissions?: PermissionsOptions;
  exports?: ExportOptions[];
  imports?: ImportOptions[];
  limits?: AccountLimitsOptions;
  /**
   * Where message traces asked by a sampled W3C `traceparent` header go, and the percentage of
   * such messages traced (default 100): nats-server 2.11's account `msg_trace`.
   */
  msgTrace?: { dest: string; sampling?: number };
  /** JetStream for this account; the server's `jetstream` must be enabled too. */
  jetstream?: boolean | AccountJetStreamOptions;
}
