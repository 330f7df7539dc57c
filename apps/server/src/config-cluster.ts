import * as z from 'zod';
import { notSupported } from './config-authorization.js';
import { dropUndefined } from './drop-undefined.js';
import type { Settings } from './settings.js';

// nats-server's `cluster {}`: the route port, the routes to dial, how routes log in. Keys this
// server does not implement (tls, permissions, advertise, pool_size, compression…) fail the
// block: ignoring them would accept or connect differently than configured.

const port = z.number().int().min(-1).max(65535);
const stringLike = z.union([z.string(), z.number().transform(String)]);

const clusterAuthorization = z.strictObject(
  {
    user: stringLike.optional(),
    password: stringLike.optional(),
    /** Seconds, as nats-server. */
    timeout: z.number().nonnegative().optional(),
  },
  { error: notSupported('cluster authorization key', 'cluster authorization') },
);

export const clusterBlock = z.strictObject(
  {
    name: z.string().optional(),
    host: z.string().optional(),
    port: port.optional(),
    listen: stringLike.optional(),
    routes: z.union([z.string().transform((route) => [route]), z.array(z.string())]).optional(),
    authorization: clusterAuthorization.optional(),
    no_advertise: z.boolean().optional(),
    connect_retries: z.number().int().nonnegative().optional(),
  },
  { error: notSupported('cluster key', 'cluster connections') },
);

type ClusterBlock = z.output<typeof clusterBlock>;

export function toCluster(block: ClusterBlock): NonNullable<Settings['cluster']> {
  const auth = block.authorization;
  return dropUndefined({
    name: block.name,
    host: block.host,
    port: block.port,
    listen: block.listen,
    routes: block.routes,
    authorization:
      auth &&
      dropUndefined({
        user: auth.user,
        password: auth.password,
        timeout: auth.timeout === undefined ? undefined : auth.timeout * 1000,
      }),
    noAdvertise: block.no_advertise,
    connectRetries: block.connect_retries,
  });
}
