/**
 * How a file store keeps a payload at rest. A stream with `compression: "s2"` has its payloads
 * compressed; Node has no S2, so raw DEFLATE (node:zlib) at its fastest level stands in for it.
 * Each stored row says how its payload is kept, so rows written before compression was turned
 * on (or off) still read. A payload that would not shrink is kept as it is.
 */
import { constants, deflateRawSync, inflateRawSync } from 'node:zlib';

/** The `encoding` a row records: 0 as given, 1 raw DEFLATE. */
export const RAW = 0;
export const DEFLATE = 1;

/** Below this many bytes compressing costs more than it saves. */
const MIN_COMPRESSED_LENGTH = 64;

export function encodePayload(
  payload: Uint8Array,
  compress: boolean,
): { bytes: Uint8Array; encoding: number } {
  if (compress && payload.length >= MIN_COMPRESSED_LENGTH) {
    const deflated = deflateRawSync(payload, { level: constants.Z_BEST_SPEED });
    if (deflated.length < payload.length) return { bytes: deflated, encoding: DEFLATE };
  }
  return { bytes: payload, encoding: RAW };
}

/** The payload as it was stored; throws when compressed bytes are damaged. */
export function decodePayload(bytes: Buffer, encoding: number): Buffer {
  return encoding === DEFLATE ? inflateRawSync(bytes) : bytes;
}
