import * as z from 'zod';
import { notSupported } from './config-authorization.js';
import { dropUndefined } from './drop-undefined.js';
import type { Settings } from './settings.js';

// nats-server's `cluster {}`: the route port, the routes to dial, how routes log in, TLS. Keys
// this server does not implement (permissions, advertise, pool_size, compression, other tls
// keys…) fail the block: ignoring them would accept or connect differently than configured.

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

/** Cluster `tls {}`: file names; `verify` is accepted, routes are always verified both ways. */
const clusterTls = z.strictObject(
  {
    cert_file: z.string(),
    key_file: z.string(),
    ca_file: z.string(),
    verify: z.boolean().optional(),
    insecure: z.boolean().optional(),
    /** Seconds, as nats-server. */
    timeout: z.number().positive().optional(),
  },
  { error: notSupported('cluster tls key', 'cluster TLS') },
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
    tls: clusterTls.optional(),
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
    tls:
      block.tls &&
      dropUndefined({
        cert: block.tls.cert_file,
        key: block.tls.key_file,
        ca: block.tls.ca_file,
        insecure: block.tls.insecure,
        timeout: block.tls.timeout === undefined ? undefined : block.tls.timeout * 1000,
      }),
  });
}
