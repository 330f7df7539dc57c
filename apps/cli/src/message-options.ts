import type { MsgHdrs } from '@slipstream/client';
import { UsageError } from './usage-error.js';

/** Collects a repeatable flag's values (`-H a:1 -H b:2`) for commander. */
export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/** Message headers from `-H Key:Value` flags, or undefined when none was given. */
export async function parseHeaders(
  pairs: readonly string[] | undefined,
): Promise<MsgHdrs | undefined> {
  if (!pairs?.length) return undefined;
  const { headers } = await import('@slipstream/client');
  const h = headers();
  for (const pair of pairs) {
    const colon = pair.indexOf(':');
    if (colon <= 0) throw new UsageError(`invalid header "${pair}": use Key:Value`);
    h.append(pair.slice(0, colon).trim(), pair.slice(colon + 1).trim());
  }
  return h;
}

/** The body argument, or what is piped into stdin when there is none (`echo hi | slip pub x`). */
export async function bodyOrStdin(body: string | undefined): Promise<string> {
  if (body !== undefined || process.stdin.isTTY) return body ?? '';
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
