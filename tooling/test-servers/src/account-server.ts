import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A running account server: the URL resolver's base, and how to stop it. */
export interface RunningAccountServer {
  /** `http://127.0.0.1:<port>/jwt/v1/accounts/`, what `resolver: URL(...)` names. */
  readonly url: string;
  close(): Promise<void>;
}

/**
 * A tiny account server, as nats-account-server serves account JWTs to nats-server's URL
 * resolver: `GET /jwt/v1/accounts/<public key>` answers the JWT (from `jwts`, read at each
 * request, so a test can change it), or 404. The base itself answers 200 unless `home` is false:
 * nats-server asks it whether anyone is home before it starts.
 */
export async function startAccountServer(
  jwts: Record<string, string>,
  { home = true } = {},
): Promise<RunningAccountServer> {
  const http = createServer((request, response) => {
    const key = /^\/jwt\/v1\/accounts\/(\w*)$/.exec(request.url ?? '')?.[1];
    const jwt = key === '' ? (home ? '' : undefined) : key === undefined ? undefined : jwts[key];
    response.writeHead(jwt === undefined ? 404 : 200, { 'content-type': 'application/jwt' });
    response.end(jwt ?? 'not found');
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/jwt/v1/accounts/`,
    close: () => new Promise((resolve) => http.close(() => resolve())),
  };
}
