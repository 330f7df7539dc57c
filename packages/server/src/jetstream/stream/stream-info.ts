/**
 * A stream's info: the body /jsz and every API answer about a stream share, and the parts an
 * API answer adds (the STREAM routes' and a finished restore's).
 */
import { nowNanos, wireTime } from '../shared/wire-time.js';
import type { Stream } from './stream.js';
import { withServerApiLevel } from './stream-api-level.js';
import { wireStreamConfig } from './stream-config.js';

/**
 * config, created and state: the body of every stream info (and of /jsz's stream details);
 * `config` is the stream's own unless an answer shows it with more (the API level).
 */
export function streamInfo(
  stream: Stream,
  options: { subjectsFilter?: string; deleted?: boolean } = {},
  config = stream.config,
) {
  return {
    config: wireStreamConfig(config),
    created: wireTime(stream.created),
    state: stream.state(options),
  };
}

/** Which parts of a stream info an answer carries beyond config, created and state. */
export interface AnswerParts {
  /** The server's version and API level in the config's metadata (2.11's setDynamicStreamMetadata). */
  readonly apiLevel: boolean;
  /** The mirror's or sources' progress. */
  readonly origins: boolean;
  /**
   * The server's JetStream domain, named (after the state) by UPDATE, INFO and LIST answers
   * (2.9.10 jetstream_api.go:1457, :1682, :1834) but not by CREATE's or a finished RESTORE's.
   */
  readonly domain?: string;
}

/**
 * Stream info as an API answer gives it, with when it was gathered (`ts`, v2.10.0
 * jetstream_api.go:1379). At v2.11.0 CREATE, UPDATE and INFO carry the API level and the origins
 * (jetstream_api.go:1646, :1741, :2124), LIST the origins only (:1963), a finished RESTORE the
 * API level only (:3979).
 */
export function answeredStreamInfo(
  stream: Stream,
  parts: AnswerParts,
  options?: { subjectsFilter?: string; deleted?: boolean },
) {
  const config = parts.apiLevel ? withServerApiLevel(stream.config) : stream.config;
  return {
    ...streamInfo(stream, options, config),
    ...(parts.domain ? { domain: parts.domain } : {}),
    ...(parts.origins ? stream.origins() : {}),
    ts: wireTime(nowNanos()),
  };
}
