import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

export interface MonitoringCredentials {
  readonly user: string;
  readonly pass: string;
}

const digest = (text: string) => createHash('sha256').update(text).digest();

/**
 * Whether a request carries `Authorization: Basic` with the monitoring port's user and password
 * (ours: nats-server's monitoring port has no authentication). Compared in constant time, on
 * digests so that the lengths do not leak either.
 */
export function basicAuthCheck(
  credentials: MonitoringCredentials,
): (req: IncomingMessage) => boolean {
  const expected = digest(`${credentials.user}:${credentials.pass}`);
  return (req) => {
    const header = req.headers.authorization ?? '';
    const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
    if (!match) return false;
    return timingSafeEqual(digest(Buffer.from(match[1]!, 'base64').toString('utf8')), expected);
  };
}
