import * as z from 'zod';
import { parseDuration } from './conf/units.js';
import { notSupported, permissions } from './config-authorization.js';
import { dropUndefined } from './drop-undefined.js';
import type { Settings } from './settings.js';

// nats-server's `leafnodes {}` (also spelled `leaf`): the leaf node port with its authorization
// and TLS, and the remotes this server joins as a leaf. Keys this server does not implement
// (advertise, compression, pinned certificates…) fail the block, for ignoring them would connect
// or accept differently than configured.

const port = z.number().int().min(-1).max(65535);
const stringLike = z.union([z.string(), z.number().transform(String)]);

/** A bare number means seconds (as in nats-server); a string is a Go duration. Result in ms. */
const seconds = z.union([
  z
    .number()
    .nonnegative()
    .transform((s) => s * 1000),
  z.string().transform((text, ctx) => {
    const ms = parseDuration(text);
    if (ms === undefined) {
      ctx.addIssue({ code: 'custom', message: `expected a duration, got ${JSON.stringify(text)}` });
      return z.NEVER;
    }
    return ms;
  }),
]);

/** `host:port` or a bare port, as `listen`. */
const listen = z.union([port, z.string()]).transform((value, ctx) => {
  const [host, portText] =
    typeof value === 'number'
      ? [undefined, String(value)]
      : (/^(.*):(-?\d+)$/.exec(value)?.slice(1) ?? []);
  const p = Number(portText);
  if (portText === undefined || !Number.isInteger(p) || p < -1 || p > 65535) {
    ctx.addIssue({ code: 'custom', message: `expected "host:port" or a port number` });
    return z.NEVER;
  }
  return { host: host || undefined, port: p };
});

/** A leaf user; `permissions` is ours (nats-server's leaf users take none). */
const leafUser = z.strictObject(
  {
    user: stringLike,
    password: stringLike,
    account: z.string().optional(),
    permissions: permissions.optional(),
  },
  { error: notSupported('leafnodes user key', 'leafnodes authorization') },
);

const leafAuthorization = z.strictObject(
  {
    user: stringLike.optional(),
    password: stringLike.optional(),
    account: z.string().optional(),
    users: z.array(leafUser).optional(),
    timeout: z.number().nonnegative().optional(),
  },
  { error: notSupported('leafnodes authorization key', 'leafnodes authorization') },
);

/** The leaf node port's `tls {}` (file names, read at the start as the client port's). */
const portTls = z.strictObject(
  {
    cert_file: z.string().optional(),
    key_file: z.string().optional(),
    ca_file: z.string().optional(),
    verify: z.boolean().optional(),
    timeout: z.number().positive().optional(),
  },
  { error: notSupported('leafnodes tls key', 'leaf node TLS') },
);

/** A remote's `tls {}`: the CA of the hub's certificate, ours, and `insecure`. */
const remoteTls = z.strictObject(
  {
    ca_file: z.string().optional(),
    cert_file: z.string().optional(),
    key_file: z.string().optional(),
    insecure: z.boolean().optional(),
    timeout: z.number().positive().optional(),
  },
  { error: notSupported('leafnodes remote tls key', 'leaf node TLS') },
);

/** One subject, or a list of them. */
const subjects = z.union([z.string().transform((subject) => [subject]), z.array(z.string())]);

const remote = z.strictObject(
  {
    tls: remoteTls.optional(),
    deny_imports: subjects.optional(),
    deny_exports: subjects.optional(),
    url: z.string().optional(),
    urls: z.array(z.string()).optional(),
    account: z.string().optional(),
    credentials: z.string().optional(),
    no_randomize: z.boolean().optional(),
    dont_randomize: z.boolean().optional(),
  },
  { error: notSupported('leafnodes remote key', 'leaf node connections') },
);

export const leafnodesBlock = z.strictObject(
  {
    host: z.string().optional(),
    port: port.optional(),
    listen: listen.optional(),
    authorization: leafAuthorization.optional(),
    tls: portTls.optional(),
    remotes: z.array(remote).optional(),
    reconnect: seconds.optional(),
    reconnect_interval: seconds.optional(),
  },
  { error: notSupported('leafnodes key', 'leaf node connections') },
);

type LeafnodesBlock = z.output<typeof leafnodesBlock>;

export function toLeafNodes(block: LeafnodesBlock): NonNullable<Settings['leafNodes']> {
  const auth = block.authorization;
  const tls = block.tls;
  return dropUndefined({
    host: block.listen?.host ?? block.host,
    port: block.listen?.port ?? block.port,
    authorization: auth && dropUndefined({ ...auth, timeout: secondsToMs(auth.timeout) }),
    tls:
      tls &&
      dropUndefined({
        cert: tls.cert_file,
        key: tls.key_file,
        ca: tls.ca_file,
        verify: tls.verify,
        timeout: secondsToMs(tls.timeout),
      }),
    remotes: block.remotes?.map((r) =>
      dropUndefined({
        urls: [...(r.url ? [r.url] : []), ...(r.urls ?? [])],
        account: r.account,
        credentials: r.credentials,
        noRandomize: r.no_randomize ?? r.dont_randomize,
        denyImports: r.deny_imports,
        denyExports: r.deny_exports,
        tls:
          r.tls &&
          dropUndefined({
            ca: r.tls.ca_file,
            cert: r.tls.cert_file,
            key: r.tls.key_file,
            insecure: r.tls.insecure,
            timeout: secondsToMs(r.tls.timeout),
          }),
      }),
    ),
    reconnectInterval: block.reconnect ?? block.reconnect_interval,
  });
}

function secondsToMs(value: number | undefined): number | undefined {
  return value === undefined ? undefined : value * 1000;
}
