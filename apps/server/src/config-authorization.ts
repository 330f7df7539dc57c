import type {
  AuthorizationOptions,
  PermissionsOptions,
  SubjectPermissionOptions,
  UserOptions,
} from '@slipstream/server';
import * as z from 'zod';
import { parseDuration } from './conf/units.js';
import { dropUndefined } from './drop-undefined.js';

// nats-server's `authorization {}` block: the single user or token, the users list with nkeys
// and permissions, default permissions. Every key nats-server takes has a schema here; a key
// it does not know, or one this server does not implement, fails the block (fail closed).

/** The message for keys a block does not take: named, and why the server will not start. */
export const notSupported =
  (what: string, block = 'authorization') =>
  (issue: { code?: string; keys?: readonly string[] }): string | undefined =>
    issue.code === 'unrecognized_keys'
      ? `${what} ${issue.keys?.map((key) => JSON.stringify(key)).join(', ')} not supported yet; refusing to start with weaker ${block} than configured`
      : undefined;

const stringLike = z.union([z.string(), z.number().transform(String)]);

/** One subject, or a list of them. */
const subjects = z.union([z.string().transform((subject) => [subject]), z.array(z.string())]);

/** `publish = "a.>"`, `publish = [a, b]` (allow lists), or `publish { allow, deny }`. */
const subjectPermission = z.union([
  subjects.transform((allow): SubjectPermissionOptions => ({ allow })),
  z.strictObject(
    { allow: subjects.optional(), deny: subjects.optional() },
    { error: notSupported('subject permission key') },
  ),
]);

/** `expires` is a Go duration string, as nats-server requires. */
const expires = z.string().transform((text, ctx) => {
  const ms = parseDuration(text);
  if (ms === undefined) {
    ctx.addIssue({ code: 'custom', message: `expected a duration like "1m", got "${text}"` });
    return z.NEVER;
  }
  return ms;
});

const allowResponses = z.union([
  z.boolean(),
  z
    .strictObject(
      {
        max: z.number().int().optional(),
        max_msgs: z.number().int().optional(),
        max_messages: z.number().int().optional(),
        max_responses: z.number().int().optional(),
        expires: expires.optional(),
        expiration: expires.optional(),
        ttl: expires.optional(),
      },
      { error: notSupported('allow_responses key') },
    )
    .transform((r) => ({
      max: r.max ?? r.max_msgs ?? r.max_messages ?? r.max_responses,
      expires: r.expires ?? r.expiration ?? r.ttl,
    })),
]);

export const permissions = z
  .strictObject(
    {
      publish: subjectPermission.optional(),
      pub: subjectPermission.optional(),
      import: subjectPermission.optional(),
      subscribe: subjectPermission.optional(),
      sub: subjectPermission.optional(),
      export: subjectPermission.optional(),
      allow_responses: allowResponses.optional(),
      publish_allow_responses: allowResponses.optional(),
    },
    { error: notSupported('permissions key') },
  )
  .transform(
    (p): PermissionsOptions =>
      dropUndefined({
        publish: p.publish ?? p.pub ?? p.import,
        subscribe: p.subscribe ?? p.sub ?? p.export,
        allowResponses: p.allow_responses ?? p.publish_allow_responses,
      }),
  );

export const user = z
  .strictObject(
    {
      user: stringLike.optional(),
      username: stringLike.optional(),
      password: stringLike.optional(),
      pass: stringLike.optional(),
      nkey: z.string().optional(),
      permissions: permissions.optional(),
      permission: permissions.optional(),
      authorization: permissions.optional(),
    },
    { error: notSupported('user key') },
  )
  .transform(
    (u): UserOptions =>
      dropUndefined({
        user: u.user ?? u.username,
        pass: u.password ?? u.pass,
        nkey: u.nkey,
        permissions: u.permissions ?? u.permission ?? u.authorization,
      }),
  );

export const authorizationBlock = z.looseObject({
  user: stringLike.optional(),
  username: stringLike.optional(),
  password: stringLike.optional(),
  pass: stringLike.optional(),
  token: stringLike.optional(),
  timeout: z.number().nonnegative().optional(),
  users: z.array(user).optional(),
  default_permissions: permissions.optional(),
  default_permission: permissions.optional(),
  permissions: permissions.optional(),
});

export type AuthorizationBlock = z.output<typeof authorizationBlock>;

/** The library's authorization options for a parsed block; undefined if it sets none. */
export function toAuthorization(a: AuthorizationBlock): AuthorizationOptions | undefined {
  const options = dropUndefined({
    user: a.user ?? a.username,
    pass: a.password ?? a.pass,
    token: a.token,
    users: a.users,
    defaultPermissions: a.default_permissions ?? a.default_permission ?? a.permissions,
  });
  return Object.keys(options).length > 0 ? options : undefined;
}
