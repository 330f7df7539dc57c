/**
 * A stream's `persist_mode` (nats-server 2.12): `default` acknowledges a publish once it is
 * persisted, `async` may acknowledge it before (nats-server flushes such a stream's file
 * asynchronously, filestore.go:705-713 at v2.12.1). On our store that is the lazy sync mode: the
 * PubAck waits for the commit to the WAL (which survives a killed process) but not for the
 * fdatasync, which happens every sync interval.
 */
import { ApiError, jsErrors, type StreamConfig } from '@slipstream/jsapi';

/** nats-server's default `sync_interval` (2 minutes), for async streams on an 'always' server. */
export const DEFAULT_ASYNC_SYNC_MS = 120_000;

/** The store's sync setting for a stream, given the server's `syncInterval`. */
export function storeSyncOf(config: StreamConfig, server: 'always' | number): 'always' | number {
  if (config.persist_mode !== 'async') return server;
  return server === 'always' ? DEFAULT_ASYNC_SYNC_MS : server;
}

/**
 * checkStreamCfg's persist mode rules (v2.12.1 stream.go:1673-1683); `default` is stored as
 * absent, as Go's omitempty leaves its zero value out.
 */
export function checkPersistMode(config: StreamConfig): void {
  if (config.persist_mode === 'default') delete config.persist_mode;
  if (config.persist_mode !== 'async') return;
  const refuse = (err: string) => ApiError.of(jsErrors.JSStreamInvalidConfigF, { err });
  if (config.storage !== 'file') {
    throw refuse('async persist mode is only supported on file storage');
  }
  if ((config.num_replicas ?? 1) > 1) {
    throw refuse('async persist mode is not supported on replicated streams');
  }
  if (config.allow_atomic) {
    throw refuse('async persist mode is not supported with atomic batch publish');
  }
}
