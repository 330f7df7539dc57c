import { decodeUtf8 } from '@slipstream/protocol';

/** JSON.parse of a message body that reports failure instead of throwing. */
export function jsonParse(body: Uint8Array): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(decodeUtf8(body)) };
  } catch {
    return { ok: false };
  }
}
