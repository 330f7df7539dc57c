/**
 * Reading and extending a raw `NATS/1.0` header block without decoding all of it: the publish
 * path looks up a handful of JetStream headers in every stored message that has headers.
 */

const CRLF = '\r\n';
const HEADER_LINE = 'NATS/1.0\r\n';

function asBuffer(block: Uint8Array): Buffer {
  return Buffer.isBuffer(block) ? block : Buffer.from(block.buffer, block.byteOffset, block.length);
}

/**
 * The value of the first header named exactly `name` (case-sensitive, as nats-server's
 * getHeader), trimmed; undefined when absent.
 */
export function headerValue(block: Uint8Array, name: string): string | undefined {
  const buffer = asBuffer(block);
  const start = buffer.indexOf(`${CRLF}${name}:`);
  if (start < 0) return undefined;
  const valueStart = start + 2 + name.length + 1;
  const end = buffer.indexOf(CRLF, valueStart);
  return buffer.toString('latin1', valueStart, end < 0 ? buffer.length : end).trim();
}

/** A header block with `entries` added after the existing ones (a new block when none). */
export function withHeaders(
  block: Uint8Array | undefined,
  entries: ReadonlyArray<readonly [string, string]>,
): Buffer {
  const added = entries.map(([name, value]) => `${name}: ${value}${CRLF}`).join('');
  if (!block || block.length === 0) return Buffer.from(`${HEADER_LINE}${added}${CRLF}`, 'latin1');
  const buffer = asBuffer(block);
  // The block ends with an empty line: insert before it.
  const body = buffer.subarray(0, buffer.length - 2);
  return Buffer.concat([body, Buffer.from(`${added}${CRLF}`, 'latin1')]);
}

/** The block without any header named exactly `name` (undefined when nothing is left). */
export function withoutHeader(block: Uint8Array | undefined, name: string): Uint8Array | undefined {
  if (!block || block.length === 0) return undefined;
  const text = asBuffer(block).toString('latin1');
  const lines = text.split(CRLF);
  const kept = lines.filter((line, i) => i === 0 || !line.startsWith(`${name}:`));
  if (kept.length === lines.length) return block;
  // Only the status line and the closing empty lines left: no headers at all.
  if (kept.every((line, i) => i === 0 || line === '')) return undefined;
  return Buffer.from(kept.join(CRLF), 'latin1');
}

/** A status-only block, as nats-server answers a direct get it cannot serve (`NATS/1.0 404 ...`). */
export function statusBlock(code: number, description: string): Buffer {
  return Buffer.from(`NATS/1.0 ${code} ${description}${CRLF}${CRLF}`, 'latin1');
}
